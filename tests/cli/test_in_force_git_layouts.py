"""In force is what git holds (SPEC 22), in every git layout a brain may sit in.

A lock or claim that HEAD's commit holds and that the work tree deleted or rewrote by hand, without a commit, is
still in force: session B cannot take the lock, open an overlapping claim or write the file through the hook, and
`bsi lock list` / `bsi claim list` show what HEAD holds. HEAD is read from the repository's files where that is
plain, and asked of git where it is not: a linked worktree (`git worktree add`), a repository whose git folder
sits elsewhere (`git init --separate-git-dir`), `$GIT_DIR` / `$GIT_WORK_TREE` set, refs packed, a detached HEAD.
The plain repository is the control.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

import pytest

from tests.bsi import INHERITED_ENV, Run, bsi_at, git, run_bsi

NOW = "2026-11-29T10:00:00Z"
A = "sess-20261129-1000-alfa"
B = "sess-20261129-1000-bravo"
C = "sess-20261129-1000-charlie"
FILE = "bravo/x.md"
LAYOUTS = ("plain", "worktree", "separate-git-dir", "git-dir-env", "packed-refs", "detached")


class Layout(NamedTuple):
    """The brain, the environment its commands run in, and the exit a refused write gets there."""

    root: Path
    env: dict[str, str]
    detached: bool  # HEAD detached: no brain file is written (a write 25, preflight 6), reads as ever

    def bsi(self, *args: str) -> Run:
        return bsi_at(NOW, env=self.env, timeout=None)(self.root, *args)


def _ok(run: Run) -> str:
    assert run.code == 0, run
    return run.out


def _make(kind: str, tmp: Path) -> Layout:
    """A brain in layout `kind`: claims alfa/, bravo/ (8 h), then, made in the layout itself, charlie's claim on
    charlie/ and alfa's lock of bravo/x.md (an hour), each committed."""
    env = dict(INHERITED_ENV)
    first = tmp / ("main" if kind == "worktree" else "brain")
    _ok(run_bsi("init", str(first), now=None, env=env, timeout=None))
    for slug in ("alfa", "bravo"):
        _ok(bsi_at(NOW, env=env, timeout=None)(first, "claim", "open", "--scope", f"{slug}/", "--ttl", "8h",
                                               "--slug", slug))
    root = first
    if kind == "worktree":
        root = tmp / "brain"
        git(first, "worktree", "add", "-q", "-b", "linked", str(root), env=env)
        assert (root / ".git").is_file()
    elif kind == "separate-git-dir":
        git(first, "init", "-q", "--separate-git-dir", str(tmp / "elsewhere.git"), env=env)
        assert (root / ".git").is_file()
    elif kind == "git-dir-env":
        env.update(GIT_DIR=str(root / ".git"), GIT_WORK_TREE=str(root))
    layout = Layout(root, env, kind == "detached")
    _ok(layout.bsi("claim", "open", "--scope", "charlie/", "--ttl", "8h", "--slug", "charlie"))
    _ok(layout.bsi("lock", "acquire", FILE, A, "60"))
    assert git(root, "status", "--porcelain", env=env).strip() == ""  # all committed
    if kind == "packed-refs":
        git(root, "pack-refs", "--all", env=env)
        assert not any((root / ".git" / "refs" / "heads").iterdir())
    elif kind == "detached":
        git(root, "checkout", "-q", "--detach", env=env)
    return layout


#: The files of a layout that name a folder of it by its absolute path (the copy's are rewritten).
POINTERS = {"worktree": ("brain/.git", "main/.git/worktrees/brain/gitdir"), "separate-git-dir": ("brain/.git",)}


@pytest.fixture(scope="session")
def _layout_templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each layout's folder, built once (`_make`) and copied per test (`layout`); filled as layouts are asked."""
    return {}


def _copy(kind: str, templates: dict[str, Path], factory: pytest.TempPathFactory, tmp: Path) -> Layout:
    """A copy of layout `kind` in `tmp/layout`, its git pointers and `$GIT_DIR` naming the copy.

    The brain records no absolute path of its own; git's index and the `.brain/` caches are keyed on the files'
    identities and checked again against the copy (tests/conftest.py `template_from`)."""
    if kind not in templates:
        templates[kind] = factory.mktemp(f"layout-{kind}")
        _make(kind, templates[kind])
    source, target = templates[kind], tmp / "layout"
    shutil.copytree(source, target, symlinks=True)
    for rel in POINTERS.get(kind, ()):
        pointer = target / rel
        text = pointer.read_text(encoding="utf-8")
        assert str(source) in text, text
        pointer.write_text(text.replace(str(source), str(target)), encoding="utf-8")
    root = target / "brain"
    env = dict(INHERITED_ENV)
    if kind == "git-dir-env":
        env.update(GIT_DIR=str(root / ".git"), GIT_WORK_TREE=str(root))
    copied = Layout(root, env, kind == "detached")
    assert git(root, "status", "--porcelain", env=env).strip() == ""  # the copy is the commit, as built
    return copied


@pytest.fixture(params=LAYOUTS)
def layout(request: pytest.FixtureRequest, _layout_templates: dict[str, Path], tmp_path: Path,
           tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Layout]:
    built = _copy(str(request.param), _layout_templates, tmp_path_factory, tmp_path)
    for name in ("GIT_DIR", "GIT_WORK_TREE"):  # the in-process decision sees what the commands saw
        if name in built.env:
            monkeypatch.setenv(name, built.env[name])
        else:
            monkeypatch.delenv(name, raising=False)
    yield built


def _decide(layout: Layout, file: str, claims: tuple[str, ...]) -> bool:
    """The hook's write decision (`Brain.decide_write`) for a session holding `claims`: allowed?"""
    from brain_tui.core.brain import Brain
    from brain_tui.core.rules.write_request import WriteSession

    brain = Brain(layout.root, clock=lambda: datetime(2026, 11, 29, 10, 5, tzinfo=UTC))
    return bool(brain.decide_write(file, WriteSession(claims=claims)).allowed)


def _lock_file(layout: Layout) -> Path:
    return layout.root / "locks" / (quote(FILE, safe="") + ".yml")


def _claim_file(layout: Layout) -> Path:
    return layout.root / "claims" / f"{C}.yml"


def _assert_lock_held(layout: Layout) -> None:
    proc = layout.bsi("lock", "acquire", FILE, B)
    assert proc.code == (25 if layout.detached else 1), proc
    assert layout.detached or A in proc.err, proc
    proc = layout.bsi("preflight", "check", B, FILE)
    assert proc.code == (6 if layout.detached else 2), proc
    assert layout.bsi("lock", "check", FILE).code == 1
    listed = [line for line in _ok(layout.bsi("lock", "list")).splitlines() if line.startswith(FILE)]
    assert any(A in line for line in listed), listed  # HEAD's copy (beside the work tree's, when rewritten)
    assert not _decide(layout, FILE, (B,))


def _assert_claim_held(layout: Layout) -> None:
    proc = layout.bsi("claim", "open", "--scope", "charlie/sub/", "--ttl", "2h", "--slug", "delta")
    assert proc.code == (25 if layout.detached else 10), proc
    assert layout.detached or C in proc.err, proc
    assert layout.bsi("check-scope", "charlie/sub/").code == 10
    listed = [line for line in _ok(layout.bsi("claim", "list")).splitlines() if line.startswith(C)]
    assert len(listed) == 1 and "charlie/" in listed[0], listed
    assert not _decide(layout, "charlie/y.md", ())  # unbound: refused inside a blocking claim


def test_the_control_holds_before_any_edit(layout: Layout) -> None:
    _assert_lock_held(layout)
    _assert_claim_held(layout)


def test_a_lock_file_deleted_by_hand_still_holds(layout: Layout) -> None:
    _lock_file(layout).unlink()
    _assert_lock_held(layout)


def test_a_lock_file_edited_to_another_holder_still_holds(layout: Layout) -> None:
    path = _lock_file(layout)
    text = path.read_text(encoding="utf-8")
    assert f"holder: {A}" in text, text
    path.write_text(text.replace(f"holder: {A}", f"holder: {B}"), encoding="utf-8")
    _assert_lock_held(layout)


def test_a_claim_file_deleted_by_hand_still_holds(layout: Layout) -> None:
    _claim_file(layout).unlink()
    _assert_claim_held(layout)


def test_a_claim_file_closed_by_hand_still_holds(layout: Layout) -> None:
    path = _claim_file(layout)
    text = path.read_text(encoding="utf-8")
    assert "status: open" in text, text
    path.write_text(text.replace("status: open", "status: closed"), encoding="utf-8")
    _assert_claim_held(layout)
