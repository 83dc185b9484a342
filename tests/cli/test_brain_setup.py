"""A brain's own setup through `bsi`: a broken brain-compose.yml, `bsi init` and `bsi demo` on bad ground."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from tests import bsi as runner
from tests.bsi import INHERITED_ENV, bsi_at, run_bsi

NOW = "2026-11-29T10:00:00+00:00"
bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)
git = partial(runner.git, env=INHERITED_ENV)
#: `bsi --now NOW ARGS…` from `cwd`, the brain found (or made) from there.
run_in = partial(run_bsi, now=NOW, env=INHERITED_ENV, timeout=None)


@pytest.fixture
def brain(tmp_path: Path) -> Path:
    root = tmp_path / "brain"
    res = run_in("init", str(root), cwd=tmp_path)
    assert res.code == 0, res.err
    return root


def test_a_compose_file_that_does_not_parse_refuses_writes_and_reads_warn(brain: Path) -> None:
    (brain / "brain-compose.yml").write_text("brain_name: prod\nsync: auto\nzones:\n  kernel: [agents/\n")
    git(brain, "add", "brain-compose.yml")
    git(brain, "commit", "-q", "-m", "compose")
    head = git(brain, "rev-parse", "HEAD")
    for args in (["claim", "open", "--scope", "wiki/"], ["watchdog"], ["index"],
                 ["signal", "send", "--to", "all", "--type", "info", "hello"]):
        res = bsi(brain, *args)
        assert res.code == 65, (args, res.err)
        assert "brain-compose.yml line " in res.err, res.err
        assert len(res.err.strip().splitlines()) == 1
    assert sorted(p.name for p in (brain / "claims").iterdir()) == [".gitkeep"]
    assert git(brain, "rev-parse", "HEAD") == head
    assert git(brain, "status", "--porcelain").strip() == ""
    listed = bsi(brain, "claim", "list")
    assert listed.code == 0, listed.err
    assert "warning" in listed.err and "brain-compose.yml line " in listed.err
    assert bsi(brain, "check-scope", "wiki/").code == 0


def test_an_empty_compose_file_is_the_defaults(brain: Path) -> None:
    (brain / "brain-compose.yml").write_text("")
    res = bsi(brain, "claim", "open", "--scope", "wiki/")
    assert res.code == 0, res.err


def test_demo_refuses_an_existing_brain_and_a_folder_that_is_not_empty(brain: Path, tmp_path: Path) -> None:
    head = git(brain, "rev-parse", "HEAD")
    for where in (brain, brain / "wiki"):
        where.mkdir(exist_ok=True)
        res = run_in("demo", ".", cwd=where)
        assert res.code == 65, res.err
        assert "already a brain" in res.err and len(res.err.strip().splitlines()) == 1
    assert sorted(p.name for p in (brain / "claims").iterdir()) == [".gitkeep"]
    assert git(brain, "rev-parse", "HEAD") == head
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.md").write_text("mine\n")
    res = run_in("demo", str(busy), cwd=tmp_path)
    assert res.code == 65 and "not empty" in res.err
    assert sorted(p.name for p in busy.iterdir()) == ["notes.md"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_in("demo", str(empty), cwd=tmp_path).code == 0
    assert run_in("demo", str(tmp_path / "new" / "demo"), cwd=tmp_path).code == 0


def test_init_on_bad_ground_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    dot_brain = tmp_path / "dotbrain"
    dot_brain.mkdir()
    (dot_brain / ".brain").write_text("a file where the local state folder goes\n")
    claims_file = tmp_path / "claimsfile"
    claims_file.mkdir()
    (claims_file / "claims").write_text("a file\n")
    for target in (a_file, a_file / "sub", dot_brain, claims_file, Path("/proc/self/brain")):
        res = run_in("init", str(target), cwd=tmp_path)
        assert res.code == 65, (target, res.err)
        assert "Traceback" not in res.err
        assert len(res.err.strip().splitlines()) == 1, res.err
    assert a_file.read_text() == "not a folder\n"
    assert not (dot_brain / ".git").exists() and not (dot_brain / "claims").exists()


def test_init_without_a_path_makes_the_brain_that_brain_names_not_the_current_folder(tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    res = run_bsi("--brain", str(tmp_path / "there"), "init", brain=None, cwd=here)
    assert res.code == 0, res.err
    assert (tmp_path / "there" / "claims").is_dir() and (tmp_path / "there" / ".git").is_dir()
    assert list(here.iterdir()) == []


def test_init_of_a_blank_path_is_65_and_makes_nothing_here(tmp_path: Path) -> None:
    """`bsi init ''` (an unset variable in a script) is bad input, not the current folder."""
    here = tmp_path / "here"
    here.mkdir()
    for blank in ("", "  "):
        res = run_in("init", blank, cwd=here)
        assert res.code == 65 and "Traceback" not in res.err, res.err
    assert list(here.iterdir()) == []


def test_demo_of_a_blank_path_is_65_and_makes_nothing_here(tmp_path: Path) -> None:
    """`bsi demo ''` is bad input, as `bsi init ''` is: never a demo in the current folder."""
    here = tmp_path / "here"
    here.mkdir()
    for blank in ("", "  "):
        res = run_in("demo", blank, cwd=here)
        assert res.code == 65 and "Traceback" not in res.err and res.err.count("\n") == 1, res
    assert list(here.iterdir()) == []


def test_a_blank_brain_flag_is_65_never_another_brain(brain: Path, tmp_path: Path) -> None:
    """`--brain ''` (an unset variable in a script) names no brain: neither $BRAIN_ROOT's nor the current folder's
    is acted on, and `init` makes nothing here."""
    here = tmp_path / "here"
    here.mkdir()
    env = {**INHERITED_ENV, "BRAIN_ROOT": str(brain)}
    for blank in ("", "  "):
        listed = run_bsi("--brain", blank, "claim", "list", brain=None, now=NOW, env=env, cwd=brain)
        assert listed.code == 65 and listed.out == "" and listed.err.count("\n") == 1, listed
        made = run_bsi("--brain", blank, "init", brain=None, now=NOW, env=INHERITED_ENV, cwd=here)
        assert made.code == 65 and "Traceback" not in made.err, made
    assert list(here.iterdir()) == []


def test_init_keeps_a_gitignore_that_already_ignores_the_state_folder_from_the_root(tmp_path: Path) -> None:
    root = tmp_path / "b"
    root.mkdir()
    (root / ".gitignore").write_text("/.brain/\n*.pyc\n", encoding="utf-8")
    assert run_in("init", str(root), cwd=tmp_path).code == 0
    assert (root / ".gitignore").read_text(encoding="utf-8") == "/.brain/\n*.pyc\n"
