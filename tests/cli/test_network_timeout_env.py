"""`BSI_NETWORK_TIMEOUT` (seconds a fetch or push may take): a value that is not a positive finite number is said
in one warning line (ignored, the default used) and never refuses the command: a bad variable must not stand
between a human and a pause."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core import network
from tests.bsi import clean_env, run_bsi


@pytest.mark.parametrize("value", ["abc", "0", "-5", "inf", "nan", " "])
def test_a_value_that_is_no_positive_finite_number_is_said_once_and_the_default_used(
        brain: Path, value: str) -> None:
    """Before: the value was dropped in silence (and `inf` was taken: a fetch that never times out)."""
    listed = run_bsi("claim", "list", brain=brain, env=clean_env(BSI_NETWORK_TIMEOUT=value))
    assert listed.code == 0, listed
    lines = [line for line in listed.err.splitlines() if "BSI_NETWORK_TIMEOUT" in line]
    assert len(lines) == 1, listed.err
    assert "ignored" in lines[0] and "60" in lines[0] and lines[0].startswith("bsi: warning:")
    assert network.network_timeout({"BSI_NETWORK_TIMEOUT": value}) == network.DEFAULT_NETWORK_TIMEOUT


@pytest.mark.parametrize("value", ["2", "0.5", "90"])
def test_a_positive_number_is_used_without_a_word(brain: Path, value: str) -> None:
    listed = run_bsi("claim", "list", brain=brain, env=clean_env(BSI_NETWORK_TIMEOUT=value))
    assert listed.code == 0 and "BSI_NETWORK_TIMEOUT" not in listed.err, listed
    assert network.network_timeout({"BSI_NETWORK_TIMEOUT": value}) == float(value)


def test_unset_or_empty_says_nothing(brain: Path) -> None:
    unset = clean_env()
    unset.pop("BSI_NETWORK_TIMEOUT", None)
    for env in (unset, clean_env(BSI_NETWORK_TIMEOUT="")):
        listed = run_bsi("claim", "list", brain=brain, env=env)
        assert listed.code == 0 and "BSI_NETWORK_TIMEOUT" not in listed.err, listed


def test_a_bad_value_never_stops_a_pause(brain: Path) -> None:
    env = clean_env(BSI_NETWORK_TIMEOUT="abc")
    sess = run_bsi("claim", "open", "--scope", "a.md", brain=brain, env=env).out.strip()
    paused = run_bsi("gate", "pause", sess, "stop", brain=brain, env=env)
    assert paused.code == 0, paused
    assert "Traceback" not in paused.err and "BSI_NETWORK_TIMEOUT" in paused.err
