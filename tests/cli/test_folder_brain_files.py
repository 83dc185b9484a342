"""A folder (or a link to one, or to a file outside the brain) named like a claim, signal or lock file (SPEC 13, 22).

`bsi lock acquire` of the file it names refused it (65: "it is a folder"), yet `bsi lock list`, `bsi claim list`,
`bsi attention` and the cockpit showed no row for it, and `preflight check` let the file be written. Now it is one
corrupt row, as any file that does not read; a lock folder holds its file (no lock can be taken while it stands),
a claim folder nothing (no claim can be read through it; a link there holds the whole brain, as before).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.lock_brain import A, B, bsi, fixtures

base_brain, brain = fixtures()

HELD = "bravo/x.md"
LOCK = "locks/bravo%2Fx.md.yml"


def _folder(path: Path) -> None:
    """A folder where a brain file would stand, holding one file (as a program that mistook the name would)."""
    path.mkdir()
    (path / "keep").write_text("x\n", encoding="utf-8")


def _link_to_folder(path: Path) -> None:
    outside = path.parent.parent.parent / "outside"
    outside.mkdir(exist_ok=True)
    os.symlink(outside, path)


def _link_outside(path: Path) -> None:
    outside = path.parent.parent.parent / "outside.yml"
    outside.write_text("file: bravo/x.md\nholder: nobody\n", encoding="utf-8")
    os.symlink(outside, path)


MAKERS = {"folder": _folder, "link to a folder": _link_to_folder, "link outside the brain": _link_outside}


@pytest.mark.parametrize("kind", list(MAKERS))
def test_a_lock_file_that_is_no_file_is_a_corrupt_row_that_holds_its_file(brain: Path, kind: str) -> None:
    MAKERS[kind](brain / LOCK)
    listed = bsi(brain, "--json", "lock", "list")
    assert listed.code == 0 and [c["path"] for c in listed.json()["corrupt"]] == [LOCK], listed
    text = bsi(brain, "lock", "list")
    assert text.code == 0 and f"corrupt lock file {LOCK}" in text.err and "Traceback" not in text.err, text
    claims = bsi(brain, "claim", "list")
    assert claims.code == 0 and f"corrupt: {LOCK}" in claims.err, claims
    proc = bsi(brain, "lock", "acquire", HELD, B)
    assert proc.code == 65 and "Traceback" not in proc.err, proc
    proc = bsi(brain, "preflight", "check", B, HELD)
    assert proc.code == 2 and LOCK in proc.err, proc
    proc = bsi(brain, "lock", "check", HELD)
    assert proc.code == 1 and LOCK in proc.out, proc
    assert bsi(brain, "preflight", "check", B, "bravo/other.md").code == 0  # only that file
    assert bsi(brain, "attention").code == 0
    assert bsi(brain, "lock", "cleanup").code == 0
    assert os.path.lexists(brain / LOCK)  # never removed by a program


def test_the_hook_decision_counts_a_lock_folder_as_holding_its_file(brain: Path) -> None:
    from brain_tui.core.brain import Brain
    from brain_tui.core.rules.write_request import WriteSession
    from brain_tui.core.sessions import hook_index
    from tests.bsi import NOW

    _folder(brain / LOCK)
    b = Brain(brain, now=NOW, commit=False)
    session = WriteSession(claims=(B,))
    assert not b.decide_write(HELD, session).allowed
    assert b.decide_write("bravo/other.md", session).allowed
    index = hook_index.build(brain, b.snapshot(), b.config)  # the hook's shortcut leaves it to the core
    assert not hook_index.may_write(index, B, HELD, b.now().timestamp())


def test_a_claim_folder_is_a_corrupt_row_that_holds_nothing(brain: Path) -> None:
    rel = "claims/sess-20261129-1000-zulu.yml"
    _folder(brain / rel)
    listed = bsi(brain, "--json", "claim", "list")
    assert listed.code == 0 and [c["path"] for c in listed.json()["corrupt"]] == [rel], listed
    text = bsi(brain, "claim", "list")
    assert text.code == 0 and f"corrupt: {rel} line 0: a folder, not a file" in text.err, text
    assert bsi(brain, "preflight", "check", A, "alfa/a.md").code == 0  # no claim can be read through it
    assert bsi(brain, "attention").code == 0
    proc = bsi(brain, "claim", "repair", "sess-20261129-1000-zulu")
    assert proc.code == 65 and "Traceback" not in proc.err and rel in proc.err, proc


def test_a_signal_folder_is_a_corrupt_row(brain: Path) -> None:
    rel = "signals/sig-20261129-1000-x.yml"
    _folder(brain / rel)
    listed = bsi(brain, "--json", "signal", "list")
    assert listed.code == 0 and "Traceback" not in listed.err, listed
    claims = bsi(brain, "--json", "claim", "list")
    assert [c["path"] for c in claims.json()["corrupt"]] == [rel], claims
    assert bsi(brain, "preflight", "check", A, "alfa/a.md").code == 0  # a signal holds nothing
