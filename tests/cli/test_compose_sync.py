"""brain-compose.yml's `sync:` (SPEC 11, 12), read by a tolerant loader: the three modes in any case and spacing,
a boolean as on/off, and a value naming no mode said in one line (the default, manual, then applies)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import git, run_bsi

REMOTE_UNREACHABLE = 69


def _sync(brain: Path, value: str) -> None:
    (brain / "brain-compose.yml").write_text(f"sync: {value}\n", encoding="utf-8")
    git(brain, "add", "brain-compose.yml")
    git(brain, "commit", "-q", "-m", "sync")


@pytest.mark.parametrize("value", ["AUTO", "Auto", "' auto '", "true"])
def test_auto_in_any_spelling_syncs_every_write(brain: Path, value: str) -> None:
    """Before: `sync: AUTO` (or `true`) was taken for the default, manual: writes stayed local, so two machines
    could each win the same scope, and nothing said the setting was not read. With no remote, an auto write
    now refuses (69), nothing written."""
    _sync(brain, value)
    opened = run_bsi("claim", "open", "--scope", "a.md", brain=brain)
    assert opened.code == REMOTE_UNREACHABLE, opened
    assert not list((brain / "claims").glob("*.yml"))
    assert "sync" in opened.err and "brain-compose.yml" in opened.err  # the advice names where auto came from


@pytest.mark.parametrize("value", ["MANUAL", "' Off'", "false"])
def test_manual_and_off_in_any_spelling_write_locally(brain: Path, value: str) -> None:
    _sync(brain, value)
    opened = run_bsi("claim", "open", "--scope", "a.md", brain=brain)
    assert opened.code == 0 and "sync" not in opened.err, opened


@pytest.mark.parametrize("value", ["sometimes", "[auto]", "3"])
def test_a_value_naming_no_mode_is_said_and_manual_applies(brain: Path, value: str) -> None:
    _sync(brain, value)
    opened = run_bsi("claim", "open", "--scope", "a.md", brain=brain)
    assert opened.code == 0, opened
    (line,) = [x for x in opened.err.splitlines() if "sync" in x]
    assert "auto, manual or off" in line and "manual" in line
