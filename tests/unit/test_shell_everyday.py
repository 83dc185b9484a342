"""Everyday agent shell lines pass the write decision (SPEC 21.3): a reader that refuses ordinary work is switched off.

`tests/fixtures/shell/everyday_lines.txt` holds the lines Claude Code, Codex and Gemini CLI agents run in a
repository of notes and code (git, the test runners, the package managers, the text tools, here-documents, loops,
`cd sub && …`, `bsi`…): one a line, or several lines between a `<<<` line and a `>>>` line. Each is decided in a
brain held by git (two commits, two other branches, a stash, a changed file) for a session whose claim covers the
folder it runs in (`proj/`), and for one holding the whole brain (`*`) run from `proj/`. Every line must stay
allowed. Beside them, the few rules an everyday line met, each with the dangerous variant it must still refuse.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.write_request import ShellCommand, WriteSession
from tests.unit.shell_brain import T0

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "shell" / "everyday_lines.txt"
_FILES = ("README.md", "notes/a.md", "notes/b.md", "src/app.py", "src/old.py", "tests/test_app.py", "package.json",
          "Makefile", "data.json", "data.csv", "names.txt", "build.log", "scripts/build.sh", "config.yml", "docs/x")


def everyday_lines() -> list[str]:
    """The corpus's lines (a `<<<` … `>>>` block is one line of several)."""
    lines: list[str] = []
    block: list[str] | None = None
    for text in CORPUS.read_text(encoding="utf-8").splitlines():
        if text == "<<<":
            block = []
        elif text == ">>>" and block is not None:
            lines.append("\n".join(block))
            block = None
        elif block is not None:
            block.append(text)
        elif text.strip():
            lines.append(text)
    return lines


class Place:
    """A brain held by git with a project folder `proj/`, and a session bound to a claim on `scope` working in it."""

    def __init__(self, root: Path, scope: str) -> None:
        self.root = root
        for folder in ("claims", "signals", "locks", "breath"):
            (root / folder).mkdir()
            (root / folder / ".gitkeep").touch()  # as `bsi init` commits them: HEAD holds every protocol folder
        (root / "claims" / "x.yml").write_text("note: a protocol file, not a claim\n")
        (root / ".gitignore").write_text(".brain/\n")  # as `bsi init` writes it
        for name in _FILES:
            (root / "proj" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "proj" / name).write_text("x\n")
        self.brain = Brain(root, clock=lambda: T0, commit=False, instance="t@test")
        claim = self.brain.open_claim(OpenRequest(scope=parse_scope(scope), ttl=timedelta(hours=2), instance="t@test"))
        self.session = WriteSession(claims=(claim,), cwd=str(root / "proj"))
        self.git("init", "-q", "-b", "main")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "brain")
        (root / "proj" / "notes" / "b.md").write_text("b\n")
        self.git("commit", "-qam", "notes")
        self.git("branch", "feature/parser")
        self.git("branch", "fix/old")
        (root / "proj" / "notes" / "a.md").write_text("stashed\n")
        self.git("stash", "-q")
        (root / "proj" / "src" / "app.py").write_text("changed\n")

    def git(self, *args: str) -> None:
        """Run git in the brain as its maintainer."""
        subprocess.run(["git", "-C", str(self.root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                       check=True, capture_output=True)

    def refused(self, line: str) -> str:
        """Why the line is refused to the session ("" when it is allowed)."""
        decision = self.brain.decide_write(ShellCommand(line), self.session)
        return "" if decision.allowed else decision.reason


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """One brain for the module, its session's claim on `proj/`: no line is run, each is only read."""
    yield Place(tmp_path_factory.mktemp("everyday"), "proj/")


def test_the_corpus_is_large_enough() -> None:
    assert len(everyday_lines()) >= 250


@pytest.mark.parametrize("scope", ["proj/", "*"])
def test_every_everyday_line_is_allowed(tmp_path: Path, scope: str) -> None:
    """Each line of the corpus passes for a session whose claim covers where it works."""
    place = Place(tmp_path, scope)
    refusals = {line: why for line in everyday_lines() if (why := place.refused(line))}
    assert not refusals, "\n".join(f"{line!r}: {why}" for line, why in refusals.items())


@pytest.mark.parametrize("line", [
    "GIT_EDITOR=true git rebase --continue", "GIT_EDITOR=true git commit --amend",
    "GIT_SEQUENCE_EDITOR=true git rebase -i HEAD~1", "GIT_EDITOR=: git merge feature/parser",
    "env GIT_EDITOR=true git rebase --continue", "export GIT_EDITOR=true && git commit --amend",
    "GIT_PAGER=cat git stash list", "GIT_PAGER= git commit --amend --no-edit",
])
def test_a_git_variable_naming_a_command_is_read_as_that_command(place: Place, line: str) -> None:
    """`GIT_EDITOR=true` sends git to no other repository: the command it names is read (`shell_runs`), so a git
    command that changes history goes as it does without it."""
    assert place.refused(line) == "", line


@pytest.mark.parametrize("line", [
    "GIT_EDITOR='rm ../claims/x.yml' git commit --amend",
    "GIT_SEQUENCE_EDITOR='touch ../claims/y.yml' git rebase -i HEAD~1",
    "export GIT_EDITOR='rm ../claims/x.yml'; git commit --amend",
    "GIT_EDITOR=true GIT_DIR=../.git git rebase --continue", "GIT_DIR=../.git GIT_EDITOR=true git commit --amend",
    "read GIT_EDITOR <<< 'rm ../claims/x.yml'; export GIT_EDITOR; git commit --amend",
    ": ${GIT_EDITOR:='rm ../claims/x.yml'}; export GIT_EDITOR; git commit --amend",
    "GIT_EDITOR=true; export GIT_EDITOR GIT_INDEX_FILE=../i; git commit --amend",
    "GIT_EDITOR=\"$(printf 'rm ../claims/x.yml')\" git commit --amend", "GIT_EDITOR=$CMD git rebase --continue",
])
def test_a_git_variable_the_line_does_not_show_as_a_command_is_still_refused(place: Place, line: str) -> None:
    """The command a variable names writing a protocol file, a value the line sets without showing it (`read`,
    `${…:=…}`, an expansion), and git's variables naming a repository or an index still refuse a git command that
    changes history."""
    assert place.refused(line), line


@pytest.mark.parametrize("line", ["find . -name '*.orig' -delete", "rm -r ../proj/..",
                                  "find . -name '*.log' -exec rm {} +"])
def test_a_write_anywhere_below_the_brain_root_says_so(tmp_path: Path, line: str) -> None:
    """Run from the brain's root, a command that may write anywhere below it is refused (protocol files are there),
    with a reason naming that root folder and the way out, not "`.` is a protocol file"."""
    place = Place(tmp_path, "*")
    decision = place.brain.decide_write(ShellCommand(line), WriteSession(claims=place.session.claims,
                                                                         cwd=str(tmp_path)))
    assert not decision.allowed, line
    assert "the brain's root folder" in decision.reason and "claims/" in decision.reason, decision.reason
