"""What a git command that moves history changes, for the shell's reader (`shell_git`): SPEC 21.3, 22.

A human's pause, a gate, another session's claim is a commit. ``git reset REV``, a ``checkout`` or ``switch`` to
another commit, ``update-ref``/``symbolic-ref`` of HEAD's branch, ``merge``, ``rebase``, ``revert`` and
``cherry-pick`` move what HEAD holds, and with it what is in force: to a commit without the pause, or by a commit
taking it back. Each protocol file whose committed content the move changes is named (`ShellReading.named`), so the
write decision refuses it; the work-tree files the command rewrites (``reset --hard``, a checkout, ``stash``,
``clean``) are its targets, decided as any write. Git is asked (``diff --name-only``, ``clean --dry-run``); where it
cannot tell (a revision it does not know, ``pull``, ``fetch -u``, ``rebase --root``, ``replace``, ``fast-import``
and ``receive-pack``, whose stdin may reset a branch, ``subtree add|merge|pull``) every protocol folder is named: the
move is refused. Outside a repository nothing is held by git, and nothing is named.
"""

from __future__ import annotations

import os
import subprocess

from brain_tui.core.paths.layout import PROTOCOL_DIRS, PROTOCOL_FILES

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["MOVERS", "PUSH_VALUES", "git_options", "git_output", "names_commit", "read_move", "read_push",
           "staged_protocol"]

#: The subcommands read here, with their options that take a value (`?`: only attached, `shell_options.OPTIONAL`).
MOVERS: dict[str, set[str]] = {
    "reset": {"--pathspec-from-file"},
    "checkout": {"-b", "-B", "--orphan", "-s", "--source", "--conflict", "--pathspec-from-file", "-t?", "--track?"},
    "switch": {"-c", "-C", "--create", "--force-create", "--orphan", "--conflict", "-t?", "--track?"},
    "update-ref": {"-m"},
    "symbolic-ref": {"-m"},
    "merge": {"-m", "--message", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option", "--into-name", "-S?",
              "--gpg-sign?", "--cleanup"},
    "rebase": {"--onto", "-s", "--strategy", "-X", "--strategy-option", "-x", "--exec", "-C", "--whitespace",
               "-S?", "--gpg-sign?", "--empty", "-r?", "--rebase-merges?"},
    # (their `-s` is `--signoff`, a flag: the strategy is `--strategy` only)
    "revert": {"-m", "--mainline", "--strategy", "-X", "--strategy-option", "-S?", "--gpg-sign?", "--cleanup"},
    "cherry-pick": {"-m", "--mainline", "--strategy", "-X", "--strategy-option", "-S?", "--gpg-sign?", "--cleanup"},
    "stash": {"-m", "--message", "--pathspec-from-file"},
    "clean": {"-e", "--exclude"},
    "read-tree": {"--prefix", "--index-output", "--exclude-per-directory"},
    "bisect": {"--term-old", "--term-new", "--term-good", "--term-bad"},
    "pull": set(), "replace": set(), "filter-branch": set(), "filter-repo": set(), "fast-import": set(),
    "receive-pack": set(), "subtree": {"-P", "--prefix", "-m", "--message", "-b", "--branch", "--onto", "--annotate"},
    "fetch": {"--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j", "--jobs", "-o",
              "--server-option", "--upload-pack", "--negotiation-tip", "--refmap", "--filter"},
}
#: `git push`'s options that take a value (`read_push`).
PUSH_VALUES = {"--repo", "-o", "--push-option", "--receive-pack", "--exec", "--signed?", "--recurse-submodules"}
#: Asking git: a few seconds at most (the hook's deadline refuses past it).
_TIMEOUT = 5
#: The long options of git whose presence makes a command read stricter (a move, a write of the work tree, of the
#: index, of the config, of the remote's history). Never one that makes it milder (`--dry-run`, `--continue`,
#: `--cached`, `--staged`, `--list`, `--global`...).
_STRICT = frozenset({"--hard", "--merge", "--keep", "--reset", "--force", "--discard-changes", "--empty", "--root",
                     "--interactive", "--update-head-ok", "--stdin", "--delete", "--detach", "--all", "--update",
                     "--include", "--index-info", "--worktree", "--index", "--apply", "--mirror",
                     "--force-with-lease", "--force-if-includes", "--add", "--unset", "--unset-all", "--replace-all",
                     "--rename-section", "--remove-section", "--edit", "--patch"})
#: The subcommands whose operands after `--` are paths `shell_git` reads (`checkout REV -- PATH`, `reset -- PATH`,
#: `stash push -- PATH`): for the others `--` only ends the options.
_PATHS_AFTER = frozenset({"checkout", "reset", "stash"})
#: Subcommands that settle or end a move already under way, which HEAD's rewound state covers (`git_head.rewound`).
_UNDER_WAY = {"--continue", "--abort", "--skip", "--quit", "--edit-todo", "--show-current-patch"}


def git_options(rest: list[str], with_value: set[str]) -> tuple[list[str], dict[str, str], set[str]]:
    """`shell_options.options` for a git subcommand's arguments (`with_value`: its options that take a value, those
    whose value is optional marked `shell_options.OPTIONAL`: `-S?`, git's `-S[<keyid>]`). git takes any unique prefix
    of a long option (`--har` is `--hard`, `--output-d=DIR` is `--output-directory=DIR`): a prefix of exactly one
    option of `with_value` is that option, its value read as such, unless it names an option of `_STRICT` whole (git
    takes a name given in full as itself: `switch --force old` is no `--force-create old`); a prefix of options that
    make the reading stricter (`_STRICT`) counts as each (one git finds ambiguous it refuses: reading it stricter
    refuses nothing git runs)."""
    from brain_tui.core.sessions.shell_options import OPTIONAL
    from brain_tui.core.sessions.shell_options import options as _options

    names = {option.removesuffix(OPTIONAL) for option in with_value}
    args: list[str] = []
    for index, arg in enumerate(rest):
        if arg == "--":
            args += rest[index:]
            break
        name, eq, value = arg.partition("=")
        longer = [option for option in names if option.startswith(name)] if len(name) > 2 and \
            name.startswith("--") and name not in names and name not in _STRICT else []
        args.append(longer[0] + eq + value if len(longer) == 1 else arg)
    operands, values, flags = _options(args, with_value)
    flags |= {option for flag in flags if len(flag) > 2 and flag.startswith("--") for option in _STRICT
              if option.startswith(flag)}
    return operands, values, flags


def git_output(folder: str | None, *args: str) -> bytes | None:
    """What `git [-C folder] ARGS` prints, or None when it fails or cannot run: the shell reader's one way to ask
    git, run as bsi runs it (`git_env`: no program of the repository's, objects and history as stored, no replace
    ref or graft), taking no lock, for a few seconds at most."""
    from brain_tui.core.sync.gitops import git_env

    try:
        done = subprocess.run(["git", *(["-C", folder] if folder else []), *args], capture_output=True,
                              timeout=_TIMEOUT, stdin=subprocess.DEVNULL, env={**git_env(), "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None




def _names(out: bytes) -> list[str]:
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]


def _differ(top: str, *revs: str, protocol: bool = True) -> list[str] | None:
    """The files (`protocol`: the protocol files only) whose content differs between the revisions (`A B`, `A...B`,
    `A` against the work tree), or None when git cannot tell."""
    where = ["--", *PROTOCOL_DIRS, *PROTOCOL_FILES] if protocol else []
    out = git_output(top, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", *revs, *where)
    return None if out is None else _names(out)


class _Move:
    """One move read in the work tree `top`, from the folder `here`, into `reading`."""

    def __init__(self, sub: str, top: str, here: str | None, reading: ShellReading) -> None:
        self.sub, self.top, self.here, self.reading = sub, top, here, reading

    def unknown(self) -> None:
        """Git cannot tell what the move changes: every protocol folder is named."""
        for name in (*PROTOCOL_DIRS, *PROTOCOL_FILES):
            self.reading.add(os.path.join(self.top, name), self.here, f"git {self.sub}", tree=True, named=True)

    def protocol(self, *revs: str) -> None:
        """Name the protocol files whose committed content differs between `revs` (unknown: every one)."""
        changed = _differ(self.top, *revs)
        if changed is None:
            self.unknown()
        for name in changed or ():
            self.reading.add(os.path.join(self.top, name), self.here, f"git {self.sub}", named=True)

    def rewrites(self, *revs: str) -> None:
        """The work-tree files the move rewrites: those differing between `revs` (one: against the work tree)."""
        changed = _differ(self.top, *revs, protocol=False)
        if changed is None:
            self.unknown()
        for name in changed or ():
            self.reading.add(os.path.join(self.top, name), self.here, f"git {self.sub}")

    def head_to(self, rev: str, *, work_tree: bool, discard: bool = False) -> None:
        """HEAD moved to `rev` (`work_tree`: the files follow; `discard`: uncommitted changes are thrown away)."""
        if git_output(self.top, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}") is None:
            if rev != "@{-1}":  # no previous branch: only one the line's own checkout left, which is HEAD now
                self.unknown()  # a revision git does not know yet (fetched or made earlier on the line)
            return
        self.protocol("HEAD", rev)
        if discard:
            self.rewrites("HEAD")
        if work_tree:
            self.rewrites("HEAD", rev)


def staged_protocol(top: str, here: str | None, reading: ShellReading) -> None:
    """Name the protocol files git's index holds apart from HEAD in the work tree `top` (what a `git commit` would
    make in force); every protocol folder when git cannot tell (no HEAD yet, a broken index)."""
    if git_output(top, "rev-parse", "--git-dir") is not None:
        _Move("commit", top, here, reading).protocol("--cached", "HEAD")


def names_commit(here: str | None, operand: str) -> bool:
    """True when git reads `operand` as a commit in the folder `here` (`-`: the previous branch). `git checkout X`
    takes X as a branch first, even where a file or folder of that name exists."""
    rev = "@{-1}" if operand == "-" else operand
    return here is not None and git_output(here, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}") is not None


def _a_path(here: str, operand: str) -> bool:
    """True when `operand` names a file (in the work tree, or held by git though deleted) rather than a commit."""
    from brain_tui.core.sessions.shell_git import held_by_git

    if names_commit(here, operand):
        return False
    return os.path.lexists(os.path.join(here, operand)) or held_by_git(here, operand)


def read_move(sub: str, rest: list[str], here: str | None, top: str | None, reading: ShellReading) -> None:
    """Read `git SUB REST` (a subcommand of `MOVERS`) run in the work tree `top`: what it changes of what git
    holds, and the work-tree files it rewrites. Nothing outside a repository."""
    operands, values, flags = git_options(rest, MOVERS[sub])
    # paths after `--` (`shell_git` reads them; a `--` with none after is no path); another subcommand's `--` only
    # ends its options: what follows is read as before it (`switch -- BRANCH`, `read-tree -- TREE`, `clean -- PATH`)
    paths = sub in _PATHS_AFTER and "--" in rest and rest.index("--") + 1 < len(rest)
    # after a `cd` the line does not show: which repository it moves is not known
    if here is None and not paths:
        reading.partial = reading.partial or f"`git {sub}` in a folder the line does not show"
        return
    if top is None or paths:
        return  # outside git; paths after `--`
    if flags & _UNDER_WAY or git_output(top, "rev-parse", "--git-dir") is None:
        return  # a move under way (HEAD is rewound); outside a repository
    move = _Move(sub, top, here, reading)
    if any("$" in word or "`" in word for word in (*operands, values.get("--onto", ""))):
        move.unknown()  # a revision (or path) an expansion makes when the line runs: not known here
        return
    if sub == "bisect":
        action = operands[0] if operands else ""
        still = action in ("", "log", "visualize", "view", "terms", "help") or \
            action in ("start", "reset") and len(operands) == 1 or "--no-checkout" in flags
        if not still:
            move.unknown()  # git checks out the commits it picks (`reset COMMIT` that one): not known here
    elif sub == "fetch":
        if flags & {"-u", "--update-head-ok"}:
            move.unknown()  # a refspec may write HEAD's own branch (`fetch -u . +OLD:main`)
    elif sub in ("pull", "replace", "filter-branch", "filter-repo", "fast-import", "receive-pack"):
        if sub != "replace" or not flags & {"-l", "--list", "-d", "--delete"}:
            move.unknown()  # what the remote, the rewrite or stdin (a `reset` of a branch) brings is not known here
    elif sub == "subtree":
        if operands[:1] != ["split"]:
            move.unknown()  # `add`, `merge`, `pull` commit another tree's files under the prefix (`claims`)
    elif sub == "reset":
        discard = bool(flags & {"--hard", "--merge", "--keep"})
        if not operands or len(operands) == 1 and not _a_path(here or top, operands[0]):
            move.head_to(operands[0] if operands else "HEAD", work_tree=discard, discard="--hard" in flags)
    elif sub in ("checkout", "switch"):
        if values.keys() & {"--orphan"}:
            move.unknown()  # a branch with no commit: nothing would be in force
        elif len(operands) == 1 and (sub == "switch" or not _a_path(here or top, operands[0])):
            rev = "@{-1}" if operands[0] == "-" else operands[0]
            move.head_to(rev, work_tree=True, discard=bool(flags & {"-f", "--force", "--discard-changes"}))
        elif not operands and flags & {"-f", "--force", "--discard-changes"}:
            move.rewrites("HEAD")
    elif sub in ("update-ref", "symbolic-ref"):
        _read_ref(move, operands, flags)
    elif sub in ("merge", "rebase"):
        if "--root" in flags:
            move.unknown()
            return
        if sub == "rebase" and len(operands) >= 2:
            move.unknown()  # `rebase UPSTREAM BRANCH` switches to BRANCH first
            return
        revs = operands or ["@{upstream}"]
        if "--onto" in values:
            revs.append(values["--onto"])
        for rev in revs:
            move.protocol(f"HEAD...{rev}")  # what the other side changed since they parted
            if sub == "rebase":
                move.protocol(f"{rev}...HEAD")  # and the commits replayed (or dropped) on top
    elif sub in ("revert", "cherry-pick"):
        for rev in operands:
            move.protocol(*rev.split("..", 1) if ".." in rev else (f"{rev}^", rev))
    elif sub == "stash":
        _read_stash(move, operands)
    elif sub == "clean" and flags & {"-f", "--force", "-i", "--interactive"} and not flags & {"-n", "--dry-run"}:
        _read_clean(move, rest)  # (without `-f` git refuses to remove anything)
    elif sub == "read-tree" and flags & {"--empty"}:
        move.unknown()  # an index holding nothing: a commit of it takes every record out
    elif sub == "read-tree" and operands:
        move.protocol("HEAD", operands[-1])
        if flags & {"-u", "--reset"}:
            move.rewrites("HEAD", operands[-1])
        if flags >= {"-u", "--reset"}:  # local changes are thrown away too, as `reset --hard` throws them
            move.rewrites("HEAD")


def _read_ref(move: _Move, operands: list[str], flags: set[str]) -> None:
    """`update-ref [-d] REF [NEW]`, `update-ref --stdin`, `symbolic-ref HEAD REF`: a move of HEAD's branch."""
    if "--stdin" in flags:
        move.unknown()
        return
    if not operands or move.sub == "symbolic-ref" and len(operands) < 2 and not flags & {"-d", "--delete"}:
        return  # a ref read
    ref = operands[0]
    if ref != "HEAD":  # a branch checked out in any work tree of the repository (one outside the brain too)
        trees = _checked_out(move.top).get(ref if ref.startswith("refs/") else f"refs/heads/{ref}", [])
        for tree in trees:  # the move read in each work tree whose HEAD it moves
            _ref_move(_Move(move.sub, tree, move.here, move.reading), operands, flags)
        return
    _ref_move(move, operands, flags)


def _ref_move(move: _Move, operands: list[str], flags: set[str]) -> None:
    """The move of `move.top`'s HEAD by a write or deletion of its ref."""
    if flags & {"-d", "--delete"} or len(operands) < 2:
        move.unknown()
    else:
        move.head_to(operands[1], work_tree=False)


def _checked_out(top: str) -> dict[str, list[str]]:
    """The branches checked out in the work trees of `top`'s repository (`refs/heads/X`: its work tree)."""
    out = git_output(top, "worktree", "list", "--porcelain", "-z")
    if out is None:  # (an older git): HEAD's own branch
        branch = (git_output(top, "symbolic-ref", "-q", "HEAD") or b"").decode("utf-8", "surrogateescape").strip()
        return {branch: [top]} if branch else {}
    held: dict[str, list[str]] = {}
    tree = top
    for field in _names(out):
        if field.startswith("worktree "):
            tree = field.removeprefix("worktree ")
        elif field.startswith("branch "):
            held.setdefault(field.removeprefix("branch "), []).append(tree)
    return held


def _read_stash(move: _Move, operands: list[str]) -> None:
    """`stash [push]` throws the work tree's changes away; `stash pop|apply|branch [STASH]` writes a stash's."""
    action = operands[0] if operands else "push"
    if action in ("push", "save") and len(operands) <= 1 + (action == "save"):
        move.rewrites("HEAD")
    elif action in ("pop", "apply", "branch"):
        given = operands[2 if action == "branch" else 1:][:1]
        stash = f"stash@{{{given[0]}}}" if given and given[0].isdigit() else given[0] if given else "stash@{0}"
        move.rewrites(f"{stash}^1", stash)


def _read_clean(move: _Move, rest: list[str]) -> None:
    """`clean -f …`: the untracked files it removes, as `git clean --dry-run` lists them (without `--force`,
    `--interactive` or `--quiet`, cut short or not: the last two would list nothing, or a menu)."""
    end = rest.index("--") if "--" in rest else len(rest)
    asked = [arg for index, arg in enumerate(rest) if index >= end or not (
        len(arg) > 2 and any(option.startswith(arg) for option in ("--force", "--interactive", "--quiet")))]
    asked = [arg.replace("f", "").replace("i", "").replace("q", "") if arg[:1] == "-" and arg[:2] != "--" else arg
             for arg in asked]
    out = git_output(move.here or move.top, "-c", "core.quotePath=false", "clean", "--dry-run",
               *[arg for arg in asked if arg != "-"])
    if out is None:
        move.unknown()
        return
    prefix = b"Would remove "
    for line in out.splitlines():
        if line.startswith(prefix + b'"'):
            move.unknown()  # a name git quotes (a control character in it)
        elif line.startswith(prefix):
            name = line[len(prefix):].decode("utf-8", "surrogateescape")
            move.reading.add(os.path.join(move.here or move.top, name), move.here, "git clean",
                             tree=name.endswith("/"))


#: `git push` options that let it take commits out of the remote's branches (a force, a deletion, a mirror).
_REWRITING_PUSH = {"-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror", "-d", "--delete",
                   "--prune"}


def read_push(rest: list[str], here: str | None, top: str | None, reading: ShellReading) -> None:
    """`git push` that may rewrite the remote's history (`--force`, `+SRC:DST`, a deletion `:DST`, `--mirror`):
    a human's pause is a commit there too, and a clone that syncs from it would hold the claim as open. Such a push
    is refused in a repository (every protocol folder named); `bsi sync` pushes the brain. A fast-forward keeps
    every commit the remote had: it goes."""
    operands, values, flags = git_options(rest, PUSH_VALUES)
    rewrites = bool(flags & _REWRITING_PUSH) or any(name.partition("=")[0] in _REWRITING_PUSH for name in values) \
        or any(spec.startswith(("+", ":")) for spec in operands[1:])
    if top is not None and rewrites and git_output(top, "rev-parse", "--git-dir") is not None:
        _Move("push", top, here, reading).unknown()

