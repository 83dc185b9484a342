"""No agent's shell moves git's history past a protocol record (SPEC 21.3, 22): a human's pause is a commit.

A paused claim is paused as git holds it. `git reset --hard <before the pause>`, a checkout or switch to that commit,
`update-ref` of the branch, `revert` of the pause, an interactive rebase that may drop it, `pull`, an alias standing
for any of these — each run by another agent's shell — would put the claim back to `open` in HEAD, and the paused
satellite could write again. A write of git's own files (`.git/refs/…`, `.git/HEAD`) by an edit tool does the same.
The hook refuses each, for a stranger, for a session holding another claim and for the paused one; the moves that
leave the protocol records as they are still go.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import git, ok, run_bsi
from tests.conftest import copy_brain, template_from
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook

STRANGER = "5a1c9e0d-2b3f-4c6d-8e7f-9a0b1c2d3e4f"
OTHER = "7d3b9f1e-4a2c-4e8d-9b6a-1c0f2e3d4a5b"


def _bash(brain: Path, command: str, session: str, cwd: Path | None = None) -> dict[str, object]:
    payload = event(brain, "Bash", "", session)
    payload["tool_input"] = {"command": command, "description": "git"}
    payload["cwd"] = str(cwd or brain)
    return payload


@pytest.fixture(scope="session")
def _paused_template(_brain_template: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = template_from(_brain_template, tmp_path_factory, "paused")
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", AGENT, brain=root))
    ok(run_bsi("claim", "open", "--scope", "docs/", "--agent-session", OTHER, brain=root))
    before = git(root, "rev-parse", "HEAD").strip()
    git(root, "branch", "old", before)
    ok(run_bsi("gate", "pause", sess, "stop writing", brain=root))
    assert git(root, "rev-parse", "HEAD").strip() != before
    return root, sess, before


@pytest.fixture
def paused(brain: Path, _paused_template: tuple[Path, str, str]) -> tuple[Path, str, str]:
    """A brain where AGENT's claim on src/ was paused by a human (a commit), OTHER holds docs/, and `before` is
    the commit from before the pause; the branch `old` points there too (built once, copied per test)."""
    template, sess, before = _paused_template
    return copy_brain(template, brain), sess, before


MOVES = ["git reset --hard {before}", "git reset --soft {before}", "git reset {before}", "git reset --keep HEAD~1",
         "git reset -q --merge HEAD^", "git checkout -b x {before}", "git checkout --detach {before}",
         "git checkout -q {before}", "git checkout old", "git checkout --orphan fresh", "git switch old",
         "git switch -c y {before}", "git switch --detach {before}", "git update-ref HEAD {before}",
         "git update-ref -m m refs/heads/{branch} {before}", "git update-ref -d HEAD", "git update-ref --stdin",
         "git symbolic-ref HEAD refs/heads/old", "git revert --no-edit HEAD", "git rebase -i {before}",
         "git rebase --onto {before} HEAD~1", "git pull", "git pull --rebase origin main", "git read-tree {before}",
         "git replace HEAD {before}", "git -c alias.back='reset --hard {before}' back", "git undo",
         "git -c alias.sh='!git reset --hard HEAD~1' sh", "cd src && git reset --hard {before}",
         "git -C src checkout {before}", "true && git reset --soft HEAD~1", "git fetch -u . +old:{branch}",
         "git reset --hard {before} --", "git checkout old --", "git checkout notes", "git checkout notes src/a.py",
         "git apply --cached -R {patch}", "git diff {before} HEAD -- claims | git apply --cached -R",
         "git diff {before} HEAD > /tmp/undo.patch; git apply --cached -R /tmp/undo.patch",
         "git diff {before} HEAD | git update-index --index-info", "git checkout-index -f -a",
         "git rm -r -q --cached ':/claims'", "git restore --source {before} --staged ':(glob)c*/**'",
         "git reset -q {before} ':/claims'", "git reset -q {before} 'c*'",
         "git push -f --receive-pack='git -c receive.denyCurrentBranch=ignore receive-pack' . {before}:{branch}",
         "git bisect start HEAD {before}",
         "git push -f origin {before}:{branch}", "git push origin +{before}:{branch}", "git push origin :{branch}",
         "git push --mirror origin", "git push --force-with-lease origin {branch}",
         "git reset --soft $(echo {before})", "git reset --soft `git rev-parse old`", "git checkout -B x \"$REV\"",
         "cd $(echo .) && git reset --soft {before}",
         "printf 'reset refs/heads/{branch}\\nfrom {before}\\n\\n' | git fast-import --force --quiet",
         "git receive-pack .", "git subtree merge --prefix=claims {before}",
         "/usr/lib/git-core/git-reset --soft {before}", "git-update-ref HEAD {before}", "git-receive-pack .",
         "git revert --no-edit -S HEAD", "git push --signed . +{before}:{branch}"]
KEEPS = ["git status", "git log --oneline -3", "git checkout -b feature", "git switch -c feature2", "git reset",
         "git diff {before}", "git stash list", "git branch -f spare {before}",
         "git update-ref refs/heads/spare {before}", "git merge old", "git reset --soft HEAD~1",
         "git -c alias.st=status st", "git fetch . old:spare2", "git clean -n -d", "git clean -d",
         "git add ':/notes'", "git add ':!claims'", "git add -- '*.md'", "git reset -q 'notes/*'",
         "git bisect log", "git push --dry-run . old:spare3", "git push -u origin feature",
         "git restore --staged .", "git commit -m --pathspec"]


@pytest.mark.parametrize("session", [STRANGER, OTHER, AGENT])
def test_a_move_past_a_humans_pause_is_refused_to_every_agent(paused: tuple[Path, str, str], session: str) -> None:
    brain, _sess, before = paused
    branch = git(brain, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(brain, "config", "alias.undo", f"reset --hard {before}")  # a human's own alias, read as what it stands for
    git(brain, "branch", "notes", before)  # a branch named as a folder: `git checkout notes` takes the branch
    (brain / "notes").mkdir(exist_ok=True)
    (brain / "notes" / "n.md").write_text("mine\n", encoding="utf-8")
    patch = brain.parent / "undo.patch"  # the pause as a patch, made by someone else: applied in reverse to the index
    patch.write_text(git(brain, "diff", before, "HEAD", "--", "claims"), encoding="utf-8")
    for move in MOVES:
        command = move.format(before=before, branch=branch, patch=patch)
        for _ in range(2):  # the core's answer, then the hook index's
            assert_denied(hook(brain, "pre-tool-use", _bash(brain, command, session)))
    assert git(brain, "rev-parse", "--abbrev-ref", "HEAD").strip() == branch


def test_moves_that_leave_the_protocol_records_as_they_are_still_go(paused: tuple[Path, str, str]) -> None:
    brain, _sess, before = paused
    (brain / "notes").mkdir(exist_ok=True)
    (brain / "notes" / "n.md").write_text("mine\n", encoding="utf-8")
    git(brain, "add", "notes/n.md")
    git(brain, "commit", "-qm", "a note")  # the last commit holds no protocol file: undoing it is one's own work
    for keep in KEEPS:
        command = keep.format(before=before)
        for _ in range(2):
            assert_allowed(hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)))


def test_the_paused_claims_scope_stays_refused_after_a_refused_move(paused: tuple[Path, str, str]) -> None:
    brain, _sess, before = paused
    assert_denied(hook(brain, "pre-tool-use", _bash(brain, f"git reset --hard {before}", STRANGER)),
                  "protocol file")
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"))))


@pytest.mark.parametrize("rel", ["HEAD", "refs/heads/{branch}", "ORIG_HEAD", "index", "packed-refs",
                                 "logs/HEAD", "objects/ab/cdef"])
@pytest.mark.parametrize("session", [STRANGER, OTHER])
def test_an_edit_tool_never_writes_gits_own_records(paused: tuple[Path, str, str], rel: str, session: str) -> None:
    brain, _sess, _before = paused
    branch = git(brain, "rev-parse", "--abbrev-ref", "HEAD").strip()
    target = str(brain / ".git" / rel.format(branch=branch))
    for tool in ("Write", "Edit"):
        assert_denied(hook(brain, "pre-tool-use", event(brain, tool, target, session)), "git's own record")
    assert_denied(hook(brain, "pre-tool-use", _bash(brain, f"echo 0 > {target}", session)), "git's own record")


APART = ["cd /tmp && GIT_DIR={root}/.git GIT_WORK_TREE={root} git reset --hard {before}",
         "cd /tmp && git --git-dir={root}/.git --work-tree={root} reset --soft {before}",
         "cd /tmp && git --git-dir {root}/.git update-ref HEAD {before}",
         "export GIT_DIR={root}/.git; cd /tmp; git reset --soft {before}",
         "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='reset --hard {before}' git x",
         "git -c include.path={root}/notes/aliases x"]


def test_a_move_sent_to_the_brains_repository_from_elsewhere_is_refused(paused: tuple[Path, str, str]) -> None:
    brain, _sess, before = paused
    (brain / "notes").mkdir(exist_ok=True)
    (brain / "notes" / "aliases").write_text(f"[alias]\n\tx = reset --hard {before}\n", encoding="utf-8")
    for move in APART:
        command = move.format(root=brain, before=before)
        for _ in range(2):
            assert_denied(hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)))
    # reading the brain's history from elsewhere still goes
    assert_allowed(hook(brain, "pre-tool-use", _bash(brain, f"cd /tmp && git -C {brain} log -1", STRANGER)))
    assert_allowed(hook(brain, "pre-tool-use", _bash(brain, f"cd /tmp && GIT_DIR={brain}/.git git log -1",
                                                     STRANGER)))


def test_a_commit_under_another_name_or_date_still_goes(paused: tuple[Path, str, str]) -> None:
    """Git's identity and date variables name who and when, not which repository or settings: a commit made with
    them is judged like any commit; a move made with them is still a move, and a repository variable beside them
    still sends the command apart."""
    brain, _sess, before = paused
    for command in ("GIT_AUTHOR_NAME=Bot GIT_AUTHOR_EMAIL=b@x GIT_COMMITTER_DATE='2026-01-01' git commit -qm x",
                    "export GIT_COMMITTER_NAME=Bot GIT_TERMINAL_PROMPT=0; git commit --allow-empty -qm x",
                    "GIT_MERGE_AUTOEDIT=no git merge HEAD"):
        assert_allowed(hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)))
    for command in (f"GIT_AUTHOR_NAME=Bot git reset --hard {before}",
                    f"GIT_AUTHOR_NAME=Bot GIT_DIR={brain}/.git git update-ref HEAD {before}",
                    "GIT_EDITOR=$E git commit -q", "GIT_AUTHOR_NAMES=x git commit -qm x"):
        assert_denied(hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)))


def test_a_replace_ref_does_not_hide_the_pause_from_the_hook(paused: tuple[Path, str, str]) -> None:
    brain, _sess, before = paused
    git(brain, "replace", "HEAD", before)  # read through it, HEAD's commit is the one from before the pause
    for _ in range(2):
        assert_denied(hook(brain, "pre-tool-use", _bash(brain, f"git reset --soft {before}", STRANGER)))


def test_a_move_of_the_brains_branch_from_another_work_tree_of_its_repository_is_refused(
        paused: tuple[Path, str, str], tmp_path: Path) -> None:
    """A work tree of the brain's repository made outside the brain shares its branches: `update-ref` of the
    brain's branch from there moves what the brain's HEAD holds as much as from the brain itself."""
    brain, _sess, before = paused
    branch = git(brain, "rev-parse", "--abbrev-ref", "HEAD").strip()
    elsewhere = tmp_path / "elsewhere"
    git(brain, "worktree", "add", "-q", "--detach", str(elsewhere))
    for command in (f"cd {elsewhere} && git update-ref refs/heads/{branch} {before}",
                    f"git -C {elsewhere} update-ref -m m refs/heads/{branch} {before}"):
        for _ in range(2):
            assert_denied(hook(brain, "pre-tool-use", _bash(brain, command, STRANGER, cwd=elsewhere)))
    assert_allowed(hook(brain, "pre-tool-use", _bash(brain, f"git update-ref refs/heads/spare {before}", STRANGER,
                                                     cwd=elsewhere)))


POINTERS = ["echo 'gitdir: {root}/.git' > notes/.git", "ln -s {root}/.git notes/.git", "mkdir -p notes/.git",
            "mv notes/n.md notes/.GIT", "git init -q --separate-git-dir={root}/.git notes",
            "git worktree add -f notes/wt {branch}", "cd notes && git worktree add --detach wt2"]


def test_no_agent_makes_a_folder_of_the_brain_a_second_work_tree_of_its_repository(
        paused: tuple[Path, str, str]) -> None:
    """From a folder whose `.git` names the brain's repository, `git rm -r --cached . && git commit` takes every
    claim out of HEAD: the pause with them. No tool makes such a `.git`."""
    brain, _sess, _before = paused
    branch = git(brain, "rev-parse", "--abbrev-ref", "HEAD").strip()
    (brain / "notes").mkdir(exist_ok=True)
    (brain / "notes" / "n.md").write_text("mine\n", encoding="utf-8")
    for command in POINTERS:
        assert_denied(hook(brain, "pre-tool-use", _bash(brain, command.format(root=brain, branch=branch), STRANGER)),
                      "`.git` inside the brain")
    for tool in ("Write", "Edit"):
        assert_denied(hook(brain, "pre-tool-use", event(brain, tool, str(brain / "notes" / ".git"), STRANGER)),
                      "`.git` inside the brain")
    # a repository of its own (its own objects and history) is not the brain's: it still goes
    assert hook(brain, "pre-tool-use", _bash(brain, "git init -q notes/sub", STRANGER)).returncode == 0
    assert not (brain / "notes" / ".git").exists()


def test_git_clean_removes_what_it_lists_and_another_claims_file_is_among_them(
        paused: tuple[Path, str, str]) -> None:
    brain, _sess, _before = paused
    (brain / "docs").mkdir(exist_ok=True)
    (brain / "docs" / "draft.md").write_text("not committed yet\n", encoding="utf-8")  # in OTHER's scope
    for command in ("git clean -fd", "git clean -fd docs", "cd docs && git clean -xdf"):
        assert_denied(hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)), "is claimed")
    for command in ("git clean -n -d", "git clean -fdn", "git clean -d"):
        assert hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)).returncode == 0, command
    assert (brain / "docs" / "draft.md").exists()


def test_a_commit_of_an_index_already_holding_a_protocol_change_is_refused(paused: tuple[Path, str, str]) -> None:
    """Whatever staged it (a script, `read-tree`, an `update-index` the line hid), `git commit` would make it what is
    in force: the commit is refused while the index holds a protocol file apart from HEAD."""
    brain, _sess, before = paused
    (brain / "notes").mkdir(exist_ok=True)
    (brain / "notes" / "n.md").write_text("mine\n", encoding="utf-8")
    git(brain, "add", "notes/n.md")
    for command in ("git commit -m mine", "git commit --amend --no-edit"):  # only one's own file staged: it goes
        assert hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)).returncode == 0, command
    git(brain, "read-tree", before)  # the claims of before the pause, staged behind the hook's back
    # `git commit PATHS` commits HEAD plus those paths only
    assert hook(brain, "pre-tool-use", _bash(brain, "git commit -qm x -- notes/n.md", STRANGER)).returncode == 0
    for command in ("git commit -m mine", "git commit --amend --no-edit", "git commit -i -m x notes/n.md",
                    "git read-tree --empty"):
        for _ in range(2):
            assert_denied(hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)), "protocol")


def _pause_not_committed(brain: Path) -> None:
    """AGENT's claim on src/ paused by a human with `--no-commit` (as one held back while git is busy); OTHER
    holds docs/."""
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--agent-session", AGENT, brain=brain))
    ok(run_bsi("claim", "open", "--scope", "docs/", "--agent-session", OTHER, brain=brain))
    ok(run_bsi("--no-commit", "gate", "pause", sess, "stop writing", brain=brain))


def _refused_to_other(brain: Path, command: str) -> None:
    """OTHER's shell line refused as writing a protocol file: the core's answer, then the hook index's."""
    for _ in range(2):
        done = hook(brain, "pre-tool-use", _bash(brain, command, OTHER))
        assert done.returncode == 2, command
        assert_denied(done, "protocol file")


def test_a_read_tree_that_throws_the_work_tree_away_is_refused_while_it_holds_a_humans_pause(brain: Path) -> None:
    # Before, `git read-tree -u --reset HEAD` was read as rewriting only what differs between HEAD and HEAD (nothing),
    # so another agent's shell put a human's pause, not committed yet (`--no-commit`, or placed while git is busy),
    # back to HEAD's `open`: the paused session wrote again. `--reset` throws local changes away, as `reset --hard`.
    _pause_not_committed(brain)
    for command in ("git read-tree -u --reset HEAD", "git read-tree --reset -u HEAD", "git read-tree -mu --reset HEAD",
                    "git read-tree -u --reset -- HEAD"):  # (read-tree's operands are trees, after `--` too)
        _refused_to_other(brain, command)
    assert_allowed(hook(brain, "pre-tool-use", _bash(brain, "git read-tree -m -u HEAD", OTHER)))  # keeps local changes
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"))), "paused")


def test_an_abbreviated_long_option_is_read_as_the_option_git_takes_it_for(brain: Path) -> None:
    # git takes any unique prefix of a long option (`--har` is `--hard`, `--res` read-tree's `--reset`): read as
    # the prefix alone, `git reset --har` was a reset keeping the work tree, and put a human's pause not committed
    # yet back to HEAD's `open`.
    _pause_not_committed(brain)
    for command in ("git reset --har", "git reset --ha HEAD", "git read-tree -u --res HEAD",
                    "git read-tree --rese -u HEAD", "git checkout --forc", "git checkout --discard",
                    "git checkout-index -f --al", "git checkout-index -f --pre=./ --al",
                    "git format-patch --output-d claims -1", "git format-patch --output-d=claims -1"):
        _refused_to_other(brain, command)
    assert_allowed(hook(brain, "pre-tool-use", _bash(brain, "git reset --qu", OTHER)))  # `--quiet`: keeps them
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"))), "paused")


def test_a_patch_mode_with_no_path_and_git_stage_are_read_as_the_whole_work_tree(brain: Path) -> None:
    # `git checkout -p`, `git restore -p`, `git stash -p` fed "y" by `yes |` throw away every change of the work tree
    # (a human's pause not committed yet); `git add -p` stages them; `git stage` is `git add` (`stage -A`, then
    # `read-tree -m -u HEAD`, put the pause back to HEAD's `open`). Read before as naming no path, they went.
    _pause_not_committed(brain)
    for command in ("yes | git checkout -p", "yes | git checkout --patch", "yes | git restore -p",
                    "yes | git stash -p", "yes | git stash push --patch", "yes | git add -p", "git stage -A",
                    "git stage .", "git stage -u"):
        _refused_to_other(brain, command)
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"))), "paused")


def test_an_option_named_whole_is_never_read_as_a_longer_one_that_takes_a_value(paused: tuple[Path, str, str]) -> None:
    # git takes an option named in full as itself, before any prefix reading: `git switch --force old` switches to
    # `old` (`--force` is `--discard-changes`). Read as the prefix of `--force-create`, it took `old` for that
    # option's value, a switch to nowhere, and the move past a human's pause went.
    brain, _sess, _before = paused
    for _ in range(2):  # the core's answer, then the hook index's
        assert_denied(hook(brain, "pre-tool-use", _bash(brain, "git switch --force old", OTHER)))
    assert_allowed(hook(brain, "pre-tool-use", _bash(brain, "git switch --force-c spare", OTHER)))  # a new branch


def test_a_double_dash_before_a_revision_still_names_the_move(paused: tuple[Path, str, str]) -> None:
    # `--` ends git's options; only checkout, reset and stash take paths after it. Read for every subcommand as
    # paths read elsewhere, `git switch -- old`, `git update-ref -- HEAD OLD` or `git clean -f -- docs` were read
    # as naming nothing: the move past a human's pause, or the removal in another claim's scope, went.
    brain, _sess, before = paused
    branch = git(brain, "rev-parse", "--abbrev-ref", "HEAD").strip()
    for move in ("git switch -- old", "git switch --discard-changes -- old", "git revert --no-edit -- HEAD",
                 "git update-ref -- HEAD {before}", "git update-ref -- refs/heads/{branch} {before}",
                 "git symbolic-ref -- HEAD refs/heads/old", "git rebase --onto {before} -- HEAD~1"):
        command = move.format(before=before, branch=branch)
        for _ in range(2):  # the core's answer, then the hook index's
            done = hook(brain, "pre-tool-use", _bash(brain, command, OTHER))
            assert done.returncode == 2, command
            assert_denied(done)
    (brain / "docs").mkdir(exist_ok=True)
    (brain / "docs" / "draft.md").write_text("not committed yet\n", encoding="utf-8")  # in OTHER's scope
    assert_denied(hook(brain, "pre-tool-use", _bash(brain, "git clean -fd -- docs", STRANGER)), "is claimed")
    assert hook(brain, "pre-tool-use", _bash(brain, "git clean -fdn -- docs", STRANGER)).returncode == 0
    assert git(brain, "rev-parse", "--abbrev-ref", "HEAD").strip() == branch


def test_git_clean_with_a_long_option_cut_short_lists_what_it_removes(paused: tuple[Path, str, str]) -> None:
    # `--qui` is `--quiet`, `--inter` `--interactive`: passed on to `git clean --dry-run` as they were, the first
    # listed nothing and the second its menu, so `git clean -f --qui` removed another claim's files unread.
    brain, _sess, _before = paused
    (brain / "docs").mkdir(exist_ok=True)
    (brain / "docs" / "draft.md").write_text("not committed yet\n", encoding="utf-8")  # in OTHER's scope
    for command in ("git clean -fd --qui", "git clean -f --quie docs", "echo 1 | git clean --inter docs",
                    "git clean --forc --qu -- docs"):
        reason = assert_denied(hook(brain, "pre-tool-use", _bash(brain, command, STRANGER)), "is claimed")
        assert "docs/" in reason and "following" not in reason, command
    assert (brain / "docs" / "draft.md").exists()
