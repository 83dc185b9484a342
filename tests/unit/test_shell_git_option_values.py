"""What a git option takes, as git reads it, for the shell's reader (SPEC 21.3, 22).

git's `-S`/`--gpg-sign` (commit, merge, rebase, revert, cherry-pick, am), push's `--signed`, commit's
`-u`/`--untracked-files`, checkout's `-t`/`--track` take an *optional* value, and only attached (`-SKEY`,
`--gpg-sign=KEY`): git never takes the next word as their value. Read as taking it, `git commit -S claims/x.yml`
committed a protocol file unseen, `git revert -S HEAD` took back a human's pause and `git push --signed . +OLD:main`
rewrote the branch. The diff family's `-u`, `-c`, `-b`, `-B` are flags (or take an attached value): read as
clone's options taking the next word, `git diff -u --output=claims/x.yml` wrote a protocol file unseen.
A value given to an option that takes one is a value (`git commit -m --pathspec`), and `git restore --staged`
without `--worktree` unstages as `git reset PATHS` does: the work tree stays as it is.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.write_request import ShellCommand, WriteSession
from brain_tui.core.sessions.shell_targets import read_command

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
                    *args], check=True, capture_output=True)


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """A brain whose last commit pauses `claims/x.yml` (`old`: the commit before, main's upstream; `side`: `old`
    and a commit releasing it), with
    `claims/x.yml` and `src/a.py` changed in the work tree and not staged."""
    for folder in ("claims", "signals", "locks", "breath", "src"):
        (tmp_path / folder).mkdir()
    (tmp_path / "claims" / "x.yml").write_text("note: a protocol file, not a claim\n")
    (tmp_path / "src" / "a.py").write_text("a = 1\n")
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "open")
    _git(tmp_path, "branch", "old")
    _git(tmp_path, "checkout", "-q", "-b", "side")  # another line of history that releases the claim
    (tmp_path / "claims" / "x.yml").write_text("status: released\n")
    _git(tmp_path, "commit", "-qam", "release")
    _git(tmp_path, "checkout", "-q", "main")
    (tmp_path / "claims" / "x.yml").write_text("status: paused\n")
    _git(tmp_path, "commit", "-qam", "pause")
    _git(tmp_path, "config", "branch.main.remote", ".")  # main's upstream is `old`: merging it changes nothing
    _git(tmp_path, "config", "branch.main.merge", "refs/heads/old")
    (tmp_path / "claims" / "x.yml").write_text("note: a protocol file, not a claim\n")
    (tmp_path / "src" / "a.py").write_text("a = 2\n")
    return Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")


def _sessions(brain: Brain) -> tuple[WriteSession, WriteSession]:
    mine = brain.open_claim(OpenRequest(scope=parse_scope("src/"), ttl=timedelta(hours=2), instance="t@test"))
    return WriteSession(claims=(mine,), cwd=str(brain.root)), WriteSession(cwd=str(brain.root))


@pytest.mark.parametrize("command", [
    "git commit -S claims/x.yml", "git commit -m m -S claims/x.yml", "git commit -qS -m m claims/x.yml",
    "git commit --gpg-sign claims/x.yml", "git commit --gpg claims/x.yml", "git commit -S -- claims/x.yml",
    "git commit -m m -u claims/x.yml", "git commit -m m --untracked-files claims/x.yml",
    "git revert -S HEAD", "git revert --no-edit --gpg-sign HEAD", "git cherry-pick -S HEAD",
    "git merge -S side", "git merge --gpg-sign side", "git rebase -S HEAD~1",
    "git push --signed . +old:main", "git push --signed . :main", "git push --sign . +old:main",
])
def test_an_option_with_an_optional_value_takes_no_next_word(brain: Brain, command: str) -> None:
    """git reads the word after `-S`, `--gpg-sign`, `--signed`, `-u` as an operand (a path, a revision, a
    repository), never as their value: a protocol file committed, a pause taken back, a branch rewritten."""
    for session in _sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


@pytest.mark.parametrize("command", [
    "git revert -s HEAD", "git revert --no-edit -s HEAD", "git revert -se HEAD", "git cherry-pick -s side",
    "git cherry-pick -x -s side", "git cherry-pick -sn side",
])
def test_the_signoff_of_revert_and_cherry_pick_takes_no_next_word(brain: Brain, command: str) -> None:
    """`-s` of `git revert` and `git cherry-pick` is `--signoff` (their strategy is `--strategy` only): read as
    taking the next word, the commit they take back or bring went unseen, a human's pause taken back."""
    assert {Path(t.path).relative_to(brain.root).as_posix()
            for t in read_command(command, str(brain.root)).named} == {"claims/x.yml"}, command
    for session in _sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


@pytest.mark.parametrize("option", ["--server-option", "--bundle-uri", "--reference-if-able", "--revision"])
def test_a_clone_option_value_is_no_folder(brain: Brain, option: str) -> None:
    """clone's `--server-option X`, `--bundle-uri X`, `--reference-if-able X`, `--revision X` take the next word:
    read as flags, the repository was taken for the folder and the folder written (`claims/new`) went unseen."""
    command = f"git clone {option} x /elsewhere/repo.git claims/new"
    assert [t.path for t in read_command(command, str(brain.root)).targets] == [str(brain.root / "claims" / "new")]
    for session in _sessions(brain):
        assert not brain.decide_write(ShellCommand(command), session).allowed, command


@pytest.mark.parametrize(("command", "named"), [
    ("git commit -S claims/x.yml", {"claims/x.yml"}), ("git commit -SKEY -m m src/a.py", {"src/a.py"}),
    ("git commit --gpg-sign=KEY src/a.py", {"src/a.py"}), ("git commit -Sm src/a.py", {"src/a.py"}),
    ("git commit -uno src/a.py", {"src/a.py"}), ("git commit -uall -m m", set()),
    ("git commit --untracked-files=no src/a.py", {"src/a.py"}),
])
def test_an_optional_value_is_read_only_attached(brain: Brain, command: str, named: set[str]) -> None:
    """`-SKEY`, `--gpg-sign=KEY`, `-uno` carry their value; `-Sm` is the key `m` (git: no message follows)."""
    found = {Path(t.path).relative_to(brain.root).as_posix() for t in read_command(command, str(brain.root)).named}
    assert found == named, command


@pytest.mark.parametrize("command", [
    "git diff -u --output=claims/x.yml", "git diff -B --output claims/x.yml", "git log -p -c --output=claims/x.yml",
    "git show -b --output=claims/x.yml", "git format-patch -u -o claims -1",
])
def test_a_diff_flag_takes_no_next_word(brain: Brain, command: str) -> None:
    """`-u` (a patch), `-c`, `-b`, `-B[n]` of the diff family take no next word: the output git writes is seen."""
    assert any(t.path.startswith(str(brain.root / "claims")) for t in read_command(command, str(brain.root)).targets)
    for session in _sessions(brain):
        assert not brain.decide_write(ShellCommand(command), session).allowed, command


@pytest.mark.parametrize("command", [
    "git commit -S -m m src/a.py", "git commit -SKEY -m m src/a.py", "git commit --gpg-sign -m m -- src/a.py",
    "git push --signed . main:spare", "git push --signed=if-asked . main:spare",
    "git commit -m '--p'", "git commit -m --pathspec", "git commit -m --pathspec-from-file src/a.py",
    "git commit --message --pathspec-from-file=list src/a.py", "git commit -S -m --pathspec src/a.py",
    "git stash push -m --pathspec-from-file src/a.py",
    "git restore --staged .", "git restore --staged -p", "git restore -S .", "yes | git restore --staged --patch",
    "git restore --staged -- .",
])
def test_ones_own_git_lines_still_go(brain: Brain, command: str) -> None:
    """A signed commit of one's own files, a message that starts like an option, an unstaging of everything (the
    work tree untouched, as `git reset .` and `git reset -p`)."""
    bound, _unbound = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), bound)
    assert decision.allowed, (command, decision)
    assert not read_command(command, str(brain.root)).partial, command


@pytest.mark.parametrize("command", [
    "git commit -S --pathspec-from-file list", "git commit -m m --pathspec-from=list", "git commit -S --pathspec-f x",
    "git restore --staged --pathspec-from-file=list", "git reset -q --pathspec-from-file list",
])
def test_paths_read_from_a_file_still_cannot_be_read(brain: Brain, command: str) -> None:
    assert "pathspec" in read_command(command, str(brain.root)).partial, command


@pytest.mark.parametrize("command", [
    "git restore --staged claims/x.yml", "cd claims && git restore --staged .", "git restore --staged claims",
    "git restore --staged --worktree .", "git restore -SW .", "git restore --staged --work .",
    "git restore --source old --staged .", "git restore -s old -S claims", "yes | git restore --staged -W -p",
    "git restore --staged ':(glob)c*/**'",
])
def test_a_restore_of_protocol_files_stays_refused(brain: Brain, command: str) -> None:
    """Unstaging a protocol file by name, a restore that writes the work tree too (`--worktree`, `-W`, a prefix of
    it), or one that stages another commit's files (`--source`) is read as before."""
    for session in _sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert not decision.allowed, (command, decision)


@pytest.mark.parametrize("command", [
    "git update-index --index-info claims/x.yml < /tmp/entries", "git update-index --index-info -- src/a.py",
    "git update-index -q --index-info src/a.py",
])
def test_update_index_info_takes_no_next_word(brain: Brain, command: str) -> None:
    """`git update-index --index-info` is a flag (its entries come on stdin): read as taking the next word, a path
    after it hid the flag, and the index entries it sets, of protocol files too, went unread."""
    assert "--index-info" in read_command(command, str(brain.root)).partial, command
    for session in _sessions(brain):
        assert not brain.decide_write(ShellCommand(command), session).allowed, command


@pytest.mark.parametrize("command", ["git merge --message hi old", "git merge --no-ff --message=hi old",
                                     "git read-tree --exclude-per-directory .gitignore -m HEAD"])
def test_a_long_options_value_is_no_revision(brain: Brain, command: str) -> None:
    """`merge --message TEXT` (like `-m TEXT`) and `read-tree --exclude-per-directory NAME` take the next word: read
    as a revision, an unknown one, the move was refused though it changes no protocol file."""
    assert not read_command(command, str(brain.root)).named, command


@pytest.mark.parametrize("command", [
    "git apply --build-fake-ancestor claims/evil p.diff", "git apply --build-fake-ancestor=claims/evil p.diff",
    "git apply --build-fake claims/evil --check p.diff", "git apply --whitespace fix --build-fake-ancestor=claims/e",
])
def test_a_fake_ancestor_index_is_a_file_written(brain: Brain, command: str) -> None:
    """`git apply --build-fake-ancestor FILE` writes an index file at FILE (and applies nothing): read as a patch
    to read, or as an option with no value, the file it writes (a protocol file here) went unseen."""
    written = {Path(t.path).relative_to(brain.root).as_posix() for t in read_command(command, str(brain.root)).targets}
    assert written & {"claims/evil", "claims/e"}, (command, written)
    for session in _sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)
