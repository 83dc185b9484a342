"""SPEC 19's list flags (`claim list --status S…`, `claim close --files F…`): a flag given twice adds to the
list, never replaces what the first gave."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run
from tests.conftest import load_claim

Bsi = Callable[..., Run]


def _open(bsi: Bsi, brain: Path, *args: str) -> str:
    run = bsi("claim", "open", *args, brain=brain)
    assert run.code == 0, run.err
    return run.out.strip()


def test_status_given_twice_lists_both_statuses(brain: Path, bsi: Bsi) -> None:
    kept = _open(bsi, brain, "--scope", "a/")
    ended = _open(bsi, brain, "--scope", "b/")
    assert bsi("claim", "close", ended, "--status", "ok", brain=brain).code == 0
    for args in (("--status", "open", "--status", "closed"), ("--status", "open", "closed")):
        run = bsi("--json", "claim", "list", *args, brain=brain)
        assert run.code == 0, run.err
        assert {c["sess_id"] for c in run.json()["claims"]} == {kept, ended}, args


def test_files_given_twice_records_every_file(brain: Path, bsi: Bsi) -> None:
    sess_id = _open(bsi, brain, "--scope", "a/")
    run = bsi("claim", "close", sess_id, "--status", "ok", "--files", "a/x.md", "--files", "a/y.md", "a/z.md",
              brain=brain)
    assert run.code == 0, run.err
    assert load_claim(brain, sess_id)["result"]["files_modified"] == ["a/x.md", "a/y.md", "a/z.md"]
