"""Git attributes an agent may write never change what bsi commits of a protocol record (SPEC 21, 22).

A `.gitattributes` at the brain's root is a free file an agent may write (its edit tools and its shell), and the
agent's shell can reach `.git/info/attributes` through a program the hook cannot read. Git applies their
conversions (`working-tree-encoding`, `eol`, `ident`, a filter) whenever it hashes a work-tree file: a human's
pause, committed through them, failed (exit 23: the claim stayed open) or landed as other bytes than bsi wrote.
bsi hashes its own files as they are (`git hash-object --no-filters`): the commit holds exactly the bytes written,
whatever attribute names them, on the plumbing's way and on the porcelain's (something else staged).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"

#: Attribute lines that make git change a file's bytes on its way into a commit (no config needed).
STEERS = ["claims/** working-tree-encoding=UTF-16", "claims/** working-tree-encoding=UTF-16LE",
          "* working-tree-encoding=UTF-16", "claims/** text eol=crlf", "claims/** ident"]


def _bsi(clone: Path, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=None)


def _committed_as_written(clone: Path, rel: str) -> None:
    """HEAD holds exactly the bytes of `rel` in the work tree."""
    head = git(clone, "cat-file", "blob", f"HEAD:{rel}")
    assert head == (clone / rel).read_text(encoding="utf-8"), "the commit holds other bytes than bsi wrote"


@pytest.mark.parametrize("where", ["root", "info", "root-staged"])
@pytest.mark.parametrize("line", STEERS)
def test_an_agents_git_attributes_never_stop_or_alter_a_humans_pause(tmp_path: Path, line: str, where: str) -> None:
    _, (clone,) = make_remote(tmp_path, 1)
    sess = _bsi(clone, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    if where == "root-staged":  # something else staged: the porcelain makes the commit
        (clone / "free.txt").write_text("x\n", encoding="utf-8")
        git(clone, "add", "free.txt")
    if where == "info":  # the agent's shell, through a program the hook cannot read
        (clone / ".git" / "info").mkdir(exist_ok=True)
        (clone / ".git" / "info" / "attributes").write_text(line + "\n", encoding="utf-8")
    else:
        (clone / ".gitattributes").write_text(line + "\n", encoding="utf-8")
    paused = _bsi(clone, "gate", "pause", sess, "stop $Id: 0123 $ here")
    assert paused.code == 0, paused.err
    rel = f"claims/{sess}.yml"
    assert "status: paused" in git(clone, "cat-file", "blob", f"HEAD:{rel}")
    _committed_as_written(clone, rel)
    assert _bsi(clone, "preflight", "check", sess, "proj/a.md").code == 4
    if where == "root-staged":
        assert git(clone, "diff", "--cached", "--name-only").split() == ["free.txt"], "the staged file moved"


def test_a_committed_attribute_file_never_loses_a_pause_across_sync(tmp_path: Path) -> None:
    _, (one, two) = make_remote(tmp_path, 2)
    sess = _bsi(one, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    # The agent on `two` commits and pushes a root .gitattributes (a free file; its own git).
    (two / ".gitattributes").write_text("claims/** working-tree-encoding=UTF-16LE\n", encoding="utf-8")
    assert _bsi(two, "sync").code == 0
    git(two, "add", ".gitattributes")
    git(two, "commit", "--quiet", "-m", "attributes")
    git(two, "push", "--quiet", "origin", "HEAD")
    assert _bsi(one, "sync").code == 0
    paused = _bsi(one, "--sync", "gate", "pause", sess, "stop")
    assert paused.code == 0, paused.err
    _committed_as_written(one, f"claims/{sess}.yml")
    assert _bsi(two, "sync").code == 0
    for clone in (one, two):
        assert _bsi(clone, "preflight", "check", sess, "proj/a.md").code == 4, f"{clone.name} lost the pause"
        shown = _bsi(clone, "--json", "claim", "show", sess)
        assert shown.code == 0 and '"paused"' in shown.out, (clone.name, shown.out, shown.err)


@pytest.mark.parametrize("staged", [False, True], ids=["plumbing", "porcelain"])
def test_an_agents_gitignore_never_stops_a_record_from_being_committed(tmp_path: Path, staged: bool) -> None:
    """A `.gitignore` naming the protocol folders (a free file) and something staged (the porcelain's way): every
    record bsi writes is still committed; `git add` refused the ignored new files (exit 25)."""
    _, (clone,) = make_remote(tmp_path, 1)
    sess = _bsi(clone, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    ignore = clone / ".gitignore"
    ignore.write_text(ignore.read_text(encoding="utf-8") + "claims/\nsignals/\nlocks/\nbreath/\n*.yml\n",
                      encoding="utf-8")
    if staged:
        (clone / "free.txt").write_text("x\n", encoding="utf-8")
        git(clone, "add", "free.txt")
    opened = _bsi(clone, "claim", "open", "--scope", "other/", "--slug", "o")
    assert opened.code == 0, opened.err
    sent = _bsi(clone, "signal", "send", "--from", sess, "--to", "all", "--type", "INFO", "hello")
    assert sent.code == 0, sent.err
    paused = _bsi(clone, "gate", "pause", sess, "stop")
    assert paused.code == 0, paused.err
    tracked = git(clone, "ls-files", "claims", "signals").split()
    assert f"claims/{opened.out.strip()}.yml" in tracked and any(p.startswith("signals/sig-") for p in tracked)
    assert "status: paused" in git(clone, "cat-file", "blob", f"HEAD:claims/{sess}.yml")
