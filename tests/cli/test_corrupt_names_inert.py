"""A corrupt record's file name is brain text (SPEC 15): the lines that name it reach the terminal inert."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run, git

Bsi = Callable[..., Run]
HOSTILE = "x\x1b]0;owned\x07\x1b[2J\u202e"


def test_corrupt_claim_and_lock_file_names_are_shown_inert(brain: Path, bsi: Bsi) -> None:
    opened = bsi("claim", "open", "--scope", "a/", brain=brain)
    assert opened.code == 0, opened.err
    (brain / "claims" / f"sess-{HOSTILE}.yml").write_text("sess_id: [\n", encoding="utf-8")
    (brain / "locks" / f"a%2F{HOSTILE}.yml").write_text("file: a/x.md\nholder: [\n", encoding="utf-8")
    git(brain, "add", "claims", "locks")
    git(brain, "commit", "-qm", "files a bad merge left")
    for args in (("claim", "list"), ("lock", "list")):
        run = bsi(*args, brain=brain)
        assert "corrupt" in run.err, (args, run.err)
        assert not any(ch in run.out + run.err for ch in "\x1b\x07\u202e"), (args, run.err)
