"""Exit triggers given at open (SPEC 6.6, 7, 13): the signal a trigger will write obeys the grammar of
`bsi signal send` (an uppercase-word type, a one-word destination, a valid scope), so a close never writes a
signal `bsi signal send` would refuse. Refused at open: exit 65, one line, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import run_bsi
from tests.conftest import tree_bytes
from tests.rules.facade import open_in, refused

ACCEPTED = [
    "signal → CHECKPOINT pilote", "signal  ->  BLOCKED_ON parent  # a comment", "signal → WIBBLE pilote",
    "signal -> info pilote", "notify → sess-20261129-0900-abcd@desktop done", "notify → prod@laptop",
    'gate:human → "deploy ok?"', "trigger → type:test scope:brain-engine/", "trigger → type:code scope:a.md#Sprint",
]
REFUSED = [
    "signal → A/B pilote", "signal → É pilote", "signal → INFO x/y", "signal → INFO \x1b[2J",
    "notify → a/../b", "trigger → type:test scope:../x", "trigger → type:test scope:/etc/",
    "trigger → type:zzz scope:a/",
]


@pytest.mark.parametrize("trigger", ACCEPTED)
def test_trigger_accepted(brain: Path, trigger: str) -> None:
    assert open_in(brain, "a/", on_done=trigger)


@pytest.mark.parametrize("trigger", REFUSED)
def test_trigger_whose_signal_would_be_refused_is_refused_at_open(brain: Path, trigger: str) -> None:
    files = tree_bytes(brain)
    error = refused(lambda: open_in(brain, "a/", on_done=trigger), 65)
    assert "on-done" in str(error) and "\n" not in str(error)
    assert tree_bytes(brain) == files


def test_bsi_open_refuses_a_trigger_to_a_path(brain: Path) -> None:
    files = tree_bytes(brain)
    run = run_bsi("claim", "open", "--scope", "a/", "--on-fail", "signal → BLOCKED_ON ../x", brain=brain)
    assert run.code == 65 and run.out == "" and run.err.count("\n") == 1 and "on-fail" in run.err, run
    assert tree_bytes(brain) == files
