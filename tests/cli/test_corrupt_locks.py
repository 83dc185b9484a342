"""A lock file that does not load may hold its file (SPEC 13, 22): `lock acquire` refuses it (65), and so do the
two readers a writer asks first — `preflight check` answers 2 (locked, naming the file to repair) and `lock check`
answers 1 with the corrupt row — never "free"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.bsi import Run, git

Bsi = Callable[..., Run]


def _brain_with_a_corrupt_lock(brain: Path, bsi: Bsi) -> str:
    run = bsi("claim", "open", "--scope", "a/", brain=brain)
    assert run.code == 0, run.err
    (brain / "locks" / "a%2Fx.md.yml").write_text("file: a/x.md\nholder: [\n", encoding="utf-8")
    git(brain, "add", "locks")
    git(brain, "commit", "-qm", "a lock file a bad merge left")
    return run.out.strip()


def test_preflight_refuses_a_file_whose_lock_file_does_not_read(brain: Path, bsi: Bsi) -> None:
    sess_id = _brain_with_a_corrupt_lock(brain, bsi)
    run = bsi("preflight", "check", sess_id, "a/x.md", brain=brain)
    assert run.code == 2, (run.code, run.out, run.err)
    assert "locks/a%2Fx.md.yml" in run.err and len(run.err.splitlines()) == 1
    assert bsi("preflight", "check", sess_id, "a/other.md", brain=brain).code == 0  # only that file


def test_lock_check_does_not_call_free_a_file_whose_lock_file_does_not_read(brain: Path, bsi: Bsi) -> None:
    _brain_with_a_corrupt_lock(brain, bsi)
    run = bsi("--json", "lock", "check", "a/x.md", brain=brain)
    assert run.code == 1, (run.code, run.out, run.err)
    doc = run.json()
    assert doc["locked"] is True and doc["lock"] is None
    assert doc["corrupt"]["path"] == "locks/a%2Fx.md.yml" and doc["corrupt"]["line"] == 3
    text = bsi("lock", "check", "a/x.md", brain=brain)
    assert text.code == 1 and "free" not in text.out and "locks/a%2Fx.md.yml" in text.out
    free = bsi("--json", "lock", "check", "a/other.md", brain=brain)
    assert free.code == 0 and free.json() == {"file": "a/other.md", "locked": False, "lock": None}


def test_the_hook_shortcut_leaves_a_corrupt_lock_file_to_the_core(brain: Path, bsi: Bsi) -> None:
    from brain_tui.core.brain import Brain
    from brain_tui.core.sessions import hook_index
    from tests.bsi import NOW

    sess_id = _brain_with_a_corrupt_lock(brain, bsi)
    b = Brain(brain, now=NOW, commit=False)
    index = hook_index.build(brain, b.snapshot(), b.config)
    assert not hook_index.may_write(index, sess_id, "a/x.md", b.now().timestamp())
