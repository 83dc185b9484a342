"""SPEC 19's list flags (`claim list --status S…`, `claim close --files F…`) and SPEC 5.1/13 on the files a
close records: a flag given twice adds to the list, a bad path is refused with 65 and nothing written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bsi import Run, git, head
from tests.conftest import load_claim, tree_bytes

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


@pytest.mark.parametrize("bad", ["../etc/passwd", "/etc/passwd", "a/\x01b", "a/../../x", ""])
def test_a_bad_file_path_on_close_is_65_and_closes_nothing(brain: Path, bsi: Bsi, bad: str) -> None:
    sess_id = _open(bsi, brain, "--scope", "a/")
    before, files = head(brain), tree_bytes(brain)
    run = bsi("claim", "close", sess_id, "--status", "ok", "--files", "a/x.md", bad, brain=brain)
    assert run.code == 65, (run.code, run.err)
    assert run.out == "" and len(run.err.splitlines()) == 1 and "path" in run.err
    assert head(brain) == before and tree_bytes(brain) == files
    assert git(brain, "status", "--porcelain") == ""


def test_files_on_close_are_recorded_normalised(brain: Path, bsi: Bsi) -> None:
    sess_id = _open(bsi, brain, "--scope", "a/")
    run = bsi("claim", "close", sess_id, "--status", "ok", "--files", "./a//x.md", "a/x.md", brain=brain)
    assert run.code == 0, run.err
    assert load_claim(brain, sess_id)["result"]["files_modified"] == ["a/x.md"]


def test_a_flag_may_stand_between_an_id_and_its_optional_message(brain: Path, bsi: Bsi) -> None:
    """`bsi gate request ID --json "why"`: the message after a flag is the message, not an unknown argument."""
    sess = _open(bsi, brain, "--scope", "a/")
    run = bsi("gate", "request", sess, "--json", "ready for review", brain=brain)
    assert run.code == 0, run.err
    assert run.json()["status"] == "waiting_human"
    assert "ready for review" in (brain / "claims" / f"{sess}.yml").read_text(encoding="utf-8")
    assert bsi("gate", "request", sess, "--json", "one", "two", brain=brain).code == 64  # one word too many
