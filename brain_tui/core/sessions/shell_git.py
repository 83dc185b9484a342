"""What a `git` command line writes in the work tree, for the shell's reader (`shell_targets`): the paths of
``checkout``, ``restore``, ``rm``, ``mv`` and ``apply`` (its patch's files), and the repository's config file for a
``config`` that sets something (it may name a program git runs: SPEC 21). The paths of ``add``, ``rm --cached``,
``restore --staged``, ``commit PATHS``, ``reset PATHS``, ``stash push PATHS`` and ``update-index`` are named, not
written: git's record of them changes (SPEC 22), so a protocol file among them is refused (``restore --staged`` from
HEAD unstages as ``reset PATHS`` does: a folder it names is that folder, not every file below it). Paths read from a
file (``--pathspec-from-file``) are not shown by the line: it cannot be read whole. Each subcommand's options are read
as git reads them (`git_options`): a value given to an option is a value, and ``-S``, ``--gpg-sign``, ``--signed``,
``-u`` take theirs only attached."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.records.git_head import git_dirs
from brain_tui.core.sessions.shell_copies import copy_like, is_dir
from brain_tui.core.sessions.shell_git_moves import MOVERS, git_options, git_output, names_commit, read_move, read_push
from brain_tui.core.sessions.shell_runs import git_setting_command, git_setting_unreadable, git_subcommand_runs
from brain_tui.core.sessions.shell_targets import ShellReading
from brain_tui.core.sessions.shell_wrappers import join_path

__all__ = ["VALUED", "read_git"]

#: At most this much of a patch file given to `git apply` is read.
MAX_PATCH = 1024 * 1024
_PATCH_PATH = LazyPattern(r"^(?:\+\+\+|---) (?:[ab]/)?(.+?)(?:\t.*)?$", re.MULTILINE)
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool",
                           "-l", "--list"})
_CONFIG_WRITES = frozenset({"--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
                            "--remove-section", "-e", "--edit"})


#: The options that take a value (`?`: only attached) of the other subcommands read here but the moves
#: (`shell_git_moves.MOVERS`), the index and path writers below and the folder makers (`_FOLDER_VALUES`).
_PATCH_VALUES = {"-p", "--directory", "--exclude", "--include", "-C", "--whitespace", "--build-fake-ancestor"}
VALUED: dict[str, set[str]] = {
    "apply": _PATCH_VALUES, "am": {*_PATCH_VALUES, "-S?", "--gpg-sign?", "--patch-format", "--resolvemsg",
                                   "--quoted-cr"},
    "config": {"-f", "--file", "--blob", "-t", "--type", "--default", "--comment"},
    "merge-file": {"-L", "--marker-size"}, "checkout-index": {"--prefix", "--stage"},
}
#: Subcommands that write the paths they name (or take git's record of them out), with their options that take a
#: value.
_PATH_WRITERS: dict[str, set[str]] = {
    "checkout": MOVERS["checkout"], "restore": {"-s", "--source", "--conflict", "--pathspec-from-file"},
    "rm": {"--pathspec-from-file"}, "mv": {"--pathspec-from-file"},
}
#: Subcommands that change the index or a commit for the paths they name, with their options that take a value
#: (`?`: only attached, `shell_options.OPTIONAL`).
_INDEX_WRITERS: dict[str, set[str]] = {
    "add": {"--chmod", "--pathspec-from-file"},
    "commit": {"-m", "--message", "-F", "--file", "-C", "--reuse-message", "-c", "--reedit-message", "--author",
               "--date", "--fixup", "--squash", "-t", "--template", "--cleanup", "-S?", "--gpg-sign?", "--trailer",
               "--pathspec-from-file", "-u?", "--untracked-files?"},
    "reset": {"--pathspec-from-file"},
    "stash": {"-m", "--message", "--pathspec-from-file"},
    "update-index": {"--cacheinfo", "--chmod", "--index-version"},  # (`--index-info` is a flag: entries on stdin)
}


def read_git(args: list[str], cwd: str | None, reading: ShellReading, depth: int = 0) -> str | None:
    """`git [-C DIR] [-c k=v] checkout|restore|rm|mv|apply|am|config|add|commit|reset|stash|update-index …`, and the
    moves of `shell_git_moves`: the paths it writes, and those whose record in git it changes
    (`ShellReading.named`)."""
    here = cwd
    index = 0
    settings: list[str] = []
    configured: list[str] = []
    apart = "git's own variables set on the line" if reading.line.git_set else ""
    while index < len(args) and args[index].startswith("-"):
        option = args[index]
        if option.partition("=")[0] in ("--git-dir", "--work-tree", "--exec-path", "--config-env"):
            apart = apart or f"`git {option.partition('=')[0]}`"
        if option in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env") and \
                index + 1 < len(args):
            if option == "-C":
                joined = join_path(here, args[index + 1])
                here = os.path.normpath(joined) if joined is not None else None
            elif option == "-c":
                settings.append(args[index + 1])
            elif option == "--config-env":
                configured.append(args[index + 1])
            index += 2
            continue
        configured += [option.partition("=")[2]] if option.startswith("--config-env=") else []
        index += 1
    for setting in configured:  # `--config-env KEY=VAR`: the value is a variable's, a command git runs unseen
        if git_setting_command(setting) is not None or git_setting_unreadable(setting):
            reading.partial = reading.partial or f"`git --config-env {setting}`: a command the line does not show"
    if reading.line.git_settings:  # `GIT_CONFIG_KEY_0=core.sshCommand …`: any command git runs, even to read
        reading.partial = reading.partial or "git's settings given by variables on the line"
    for setting in settings:  # `-c core.sshCommand=CMD`: a command line git runs, read as one
        reading.partial = reading.partial or git_setting_unreadable(setting)
        if (line := git_setting_command(setting)) is not None:
            from brain_tui.core.sessions.shell_targets import read_text

            read_text(line, here, reading, None, depth + 1)
    if index >= len(args):
        return cwd
    sub, rest = args[index], args[index + 1:]
    sub = "add" if sub == "stage" else sub  # git's own synonym
    lines, why = git_subcommand_runs(sub, rest)  # `rebase -x CMD`, `fetch --upload-pack CMD`: read as commands
    reading.partial = reading.partial or why
    for line in lines:
        from brain_tui.core.sessions.shell_targets import read_text

        read_text(line, here, reading, None, depth + 1)
    if apart and sub not in READS:  # what it changes there is not what its folder shows
        reading.partial = reading.partial or f"`git {sub}` acts on a repository named apart from its folder ({apart})"
        return cwd
    if sub not in KNOWN:  # an alias (`git undo` for `reset --hard HEAD~1`) is read as what it stands for
        alias = _alias(sub, settings, here)
        if alias is not None and alias.startswith("!"):
            reading.partial = reading.partial or f"`git {sub}` runs the shell alias `{alias[1:60]}`"
        elif alias is not None and depth < 5:
            try:
                words = shlex.split(alias)
            except ValueError:
                reading.partial = reading.partial or f"`git {sub}`: an alias that cannot be read"
                return cwd
            return read_git([*args[:index], *words, *rest], cwd, reading, depth + 1)
        elif alias is not None:
            reading.partial = reading.partial or f"`git {sub}`: aliases nested too deep"
    options = rest[:rest.index("--")] if "--" in rest else rest
    # paths the line does not show (`--pathspec-from` too: git takes a long option's unique prefix); a word given as
    # another option's value is that value (`commit -m --pathspec`)
    _operands, valued, bare = git_options(rest, _PATH_WRITERS.get(sub) or _INDEX_WRITERS.get(sub) or
                                          MOVERS.get(sub) or set())
    if any(len(name) > 2 and "--pathspec-from-file".startswith(name) for name in (*valued, *bare)):
        reading.partial = reading.partial or f"`git {sub} --pathspec-from-file`: paths from a file the line hides"
    if sub in ("checkout", "restore"):
        operands, values, flags = git_options(rest, _PATH_WRITERS[sub])
        if "--" in rest:
            paths = rest[rest.index("--") + 1:]
        elif sub == "restore":
            paths = operands
        else:  # `git checkout [TREE-ISH] PATH…`: the first a path when it is one (deleted: git still holds it) and
            # no commit of that name (git takes a branch first)
            paths = operands[1:] + [p for p in operands[:1] if (full := join_path(here, p)) is not None and
                                    (os.path.lexists(full) or held_by_git(here, p)) and not names_commit(here, p)]
        staged_only = sub == "restore" and bool(flags & {"-S", "--staged"}) and not flags & {"-W", "--worktree"}
        # `restore --staged` from HEAD unstages as `git reset [-p] PATHS` does: git's record of the paths goes back to
        # HEAD's, the work tree stays as it is (a folder named is no protocol file; one named inside is)
        unstages = staged_only and not values.keys() & {"-s", "--source"}
        if not paths and flags & {"-p", "--patch"} and not unstages:  # each change of the work tree offered (`yes |`
            paths = [_git_top(here) or "."]  # takes them all)
        for path in pathspecs(paths, here):
            reading.add(path, here, f"git {sub}", tree=not unstages and is_dir(here, path), named=staged_only)
        if sub == "checkout":  # to another commit: what is in force moves (`shell_git_moves`)
            read_move(sub, rest, here, _git_top(here), reading)
    elif sub in ("rm", "mv"):
        operands, values, flags = git_options(rest, _PATH_WRITERS[sub])
        if sub == "rm":
            for operand in pathspecs(operands, here):  # --cached: the file stays, git stops holding it
                reading.add(operand, here, "git rm", tree="-r" in flags, named="--cached" in flags)
        else:
            copy_like("git mv", operands, values, flags, here, reading, moves=True)
    elif sub in _INDEX_WRITERS:  # what git holds for these paths changes, the files do not (SPEC 22)
        operands, _values, _flags = git_options(rest, _INDEX_WRITERS[sub])
        if "--" in rest:
            operands = rest[rest.index("--") + 1:]
        elif sub in ("reset", "stash"):  # `git reset COMMIT`, `git stash push|pop…`: only what names a path
            operands = [p for p in operands if (full := join_path(here, p)) is not None and os.path.lexists(full)
                        or _magic(p) and not names_commit(here, p)]  # (`reset REV ':/claims'`, `'c*'`)
        if sub == "update-index" and _flags & {"--stdin", "--index-info"}:  # paths the line does not show
            reading.partial = reading.partial or "`git update-index --stdin|--index-info`: paths the line hides"
        if sub == "update-index":  # `--cacheinfo MODE,OBJECT,PATH` (the one-word form) names its path in the value
            operands += [value.split(",", 2)[2] for value in _cacheinfo_values(rest) if value.count(",") >= 2]
        for operand in pathspecs(operands, here, changed=sub == "add",
                                                           ignored=bool(_flags & {"-f", "--force"})):
            reading.add(operand, here, f"git {sub}", named=True)
        _sweep(sub, operands, _flags, here, reading)
        if sub in MOVERS:  # `reset REV`, `stash [pop]`: HEAD or the work tree moves (`shell_git_moves`)
            read_move(sub, rest, here, _git_top(here), reading)
    elif sub == "config":  # a setting is a write of the config file (it may name a program git runs)
        operands, values, flags = git_options(rest, VALUED["config"])
        writes = bool(flags & _CONFIG_WRITES) or (len(operands) >= 2 and not flags & _CONFIG_READS)
        if not writes or "--system" in flags or "--blob" in values:
            return cwd
        given = values.get("-f") or values.get("--file")
        if "--global" in flags and not given:  # the user's own: the human's git and bsi's read it
            home = os.environ.get("HOME", "")
            if home and not reading.line.home_set:
                reading.add(os.path.join(home, ".gitconfig"), here, "git config --global")
            else:
                reading.partial = reading.partial or "`git config --global` on a line that sets HOME"
            return cwd
        work = _git_top(here) or here or ""
        gitdirs = git_dirs(Path(work))  # a linked worktree's `.git` is a file: the config is the main repository's
        reading.add(given or os.path.join(gitdirs[-1] if gitdirs else os.path.join(work, ".git"), "config"), here,
                    "git config")
    elif sub in MOVERS:
        read_move(sub, rest, here, _git_top(here), reading)
    elif sub in ("apply", "am"):
        operands, values, flags = git_options(rest, VALUED[sub])
        if values.get("--build-fake-ancestor"):  # an index file of the blobs the patch names, written there
            reading.add(values["--build-fake-ancestor"], here, f"git {sub} --build-fake-ancestor")
        if flags & {"--check", "--stat", "--numstat", "--summary", "--continue", "--abort", "--skip", "--quit",
                    "--show-current-patch"} and not flags & {"--apply", "--index", "--cached"}:
            return cwd
        top = _git_top(here)
        for operand in operands or ["-"]:  # `--cached`: git's record of the paths changes, not the files
            _read_patch(operand, here, top, reading, index_only=sub == "apply" and "--cached" in flags)
    elif sub in ("merge-file", "checkout-index"):
        _read_index_outputs(sub, rest, here, reading)
    elif sub in ("push", "send-pack") and (
            any(arg.partition("=")[0] in ("--receive-pack", "--exec") for arg in options) or
            any(".receivepack=" in setting.casefold() for setting in settings)):  # the receiving side's program
        reading.partial = reading.partial or f"`git {sub}` runs a receiving program the line chooses"
    elif sub in ("push", "send-pack"):
        read_push(rest, here, _git_top(here), reading)
    else:
        _read_outputs(sub, rest, here, reading)
    return cwd


def pathspecs(specs: list[str], here: str | None, *, changed: bool = False, ignored: bool = False) -> list[str]:
    """The paths git takes `specs` for, from the folder `here`. With a glob (`*` crosses `/` in git) or a magic
    pathspec (`:/claims`, `:(glob)c*/**`, `:!src`) among them, all of them together as the files git's index
    and work tree hold that they match (`changed`: only those whose work-tree state differs from the index, what
    `git add` stages; `ignored`: the files git ignores too, `add -f`; git cannot tell: the protocol folders at
    the work tree's top); else the specs as they are."""
    from brain_tui.core.paths.layout import PROTOCOL_DIRS, PROTOCOL_FILES

    if here is None or not any(_magic(spec) for spec in specs):
        return specs
    which = ["--modified", "--deleted"] if changed else ["--cached"]
    out = git_output(here, "ls-files", "-z", *which, "--others", *([] if ignored else ["--exclude-standard"]), "--",
                     *specs)
    if out is None:
        top = _git_top(here) or here
        return [os.path.join(top, name) for name in (*PROTOCOL_DIRS, *PROTOCOL_FILES)]
    return [name.decode("utf-8", "surrogateescape") for name in out.split(b"\0") if name]


def _magic(spec: str) -> bool:
    """True for a pathspec git reads as more than a path: a glob, or one with magic (`:/`, `:(glob)`, `:!`)."""
    return spec.startswith(":") or any(ch in spec for ch in "*?[")


#: The subcommands that only read, wherever the repository they read is.
READS = frozenset({"status", "log", "diff", "show", "ls-files", "rev-parse", "blame", "grep", "describe", "shortlog",
                   "cat-file", "ls-tree", "rev-list", "merge-base", "show-ref", "for-each-ref", "help", "version",
                   "var", "count-objects", "name-rev", "range-diff", "whatchanged", "diff-tree", "diff-files",
                   "diff-index", "ls-remote", "check-ignore"})
#: The subcommands read as themselves (no alias lookup): those read here and git's common ones that write nothing.
KNOWN = frozenset({"checkout", "restore", "rm", "mv", "add", "commit", "reset", "stash", "update-index", "config",
                   "apply", "am", "status", "log", "diff", "show", "fetch", "branch", "tag", "ls-files", "rev-parse",
                   "blame", "grep", "describe", "shortlog", "remote", "init", "clone", "worktree", "submodule",
                   "format-patch", "archive", "bundle", "cat-file", "ls-tree", "rev-list", "merge-base", "reflog",
                   "show-ref", "for-each-ref", "help", "version", "push", "gc", "fsck", "notes", "bisect",
                   "hash-object", "write-tree", "commit-tree", "mktree", "check-ignore", "name-rev", "var",
                   "count-objects", "range-diff", "whatchanged", "diff-tree", "diff-files", "diff-index",
                   "ls-remote", "symbolic-ref", "merge-file", "checkout-index", *MOVERS})


def _alias(sub: str, settings: list[str], here: str | None) -> str | None:
    """What the alias `sub` stands for (set with `-c alias.SUB=…` on the line, else in git's config), or None."""
    for setting in reversed(settings):
        key, eq, value = setting.partition("=")
        if eq and key.casefold() == f"alias.{sub}".casefold():
            return value
    given = [word for setting in settings for word in ("-c", setting)]  # an `include.path` among them too
    alias = (git_output(here, *given, "config", "--get", f"alias.{sub}") or b"").decode("utf-8", "surrogateescape")
    return alias.strip() or None


def _cacheinfo_values(args: list[str]) -> list[str]:
    """Every value of `--cacheinfo` in `git update-index` arguments (`--cacheinfo V` and `--cacheinfo=V`)."""
    found: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--cacheinfo" and index + 1 < len(args):
            found.append(args[index + 1])
        elif arg.startswith("--cacheinfo="):
            found.append(arg.partition("=")[2])
    return found


#: Options of `git clone|worktree add|submodule add|init` (`_FOLDER_SUBS`) that take a value (not the folder they
#: write). Theirs only: in the other subcommands `_read_outputs` reads (`diff`, `log`, `format-patch`…) `-u`, `-c`,
#: `-b` are flags and `-B[<n>]` takes only a value attached, never the next word (`diff -u --output=FILE`).
_FOLDER_SUBS = frozenset({"clone", "init", "worktree", "submodule"})
_FOLDER_VALUES = {"-b", "--branch", "-o", "--origin", "--depth", "--reference", "--template", "--separate-git-dir",
                  "-c", "--config", "-u", "--upload-pack", "--filter", "-B", "--reason", "--name", "--shallow-since",
                  "--shallow-exclude", "--jobs", "-j", "--object-format", "--ref-format", "--initial-branch",
                  "--server-option", "--bundle-uri", "--reference-if-able", "--revision"}


def _read_outputs(sub: str, rest: list[str], here: str | None, reading: ShellReading) -> None:
    """The files and folders other subcommands write where they are named: `--output=FILE` (diff, log, show…),
    `archive -o`, `format-patch -o DIR`, `bundle create FILE`, and the new work trees of `clone`, `init`,
    `worktree add` and `submodule add`."""
    operands, values, _flags = git_options(rest, {"--output", "-o", "--output-directory",
                                                  *(_FOLDER_VALUES if sub in _FOLDER_SUBS else ())})
    if sub == "format-patch":
        folder = values.get("-o") or values.get("--output-directory")
        if folder:
            reading.add(folder, here, "git format-patch", tree=True)
    elif sub == "archive" and (values.get("-o") or values.get("--output")):
        reading.add(values.get("-o") or values.get("--output", ""), here, "git archive")
    elif "--output" in values:
        reading.add(values["--output"], here, f"git {sub}")
    if sub == "bundle" and operands[:1] == ["create"] and len(operands) >= 2:
        reading.add(operands[1], here, "git bundle")
    elif sub in ("clone", "init") and (operands or sub == "init"):
        folder = "." if not operands else operands[0] if sub == "init" else operands[1] if len(operands) >= 2 else \
            os.path.basename(operands[0].rstrip("/").rsplit(":", 1)[-1]).removesuffix(".git")
        reading.add(folder, here, f"git {sub}", tree=True)
        if "--separate-git-dir" in values:  # its `.git` is a file naming that folder's repository
            reading.add(os.path.join(folder, ".git"), here, f"git {sub}")
            reading.add(values["--separate-git-dir"], here, f"git {sub}", tree=True)
    elif sub in ("worktree", "submodule") and operands[:1] == ["add"] and len(operands) >= 2:
        folder = operands[1] if sub == "worktree" else operands[2] if len(operands) >= 3 else \
            os.path.basename(operands[1].rstrip("/")).removesuffix(".git")
        reading.add(folder, here, f"git {sub} add", tree=True)
        if sub == "worktree":  # its `.git` file names this repository: a second work tree of it
            reading.add(os.path.join(folder, ".git"), here, "git worktree add")


def _read_index_outputs(sub: str, rest: list[str], here: str | None, reading: ShellReading) -> None:
    """`merge-file CURRENT BASE OTHER` writes CURRENT (not with `-p`); `checkout-index` writes the files it names
    from the index (`-a`: every file, at the work tree's top or below `--prefix`)."""
    if sub == "merge-file":
        operands, _values, flags = git_options(rest, VALUED["merge-file"])
        if operands and not flags & {"-p", "--stdout"}:
            reading.add(operands[0], here, "git merge-file")
        return
    operands, values, flags = git_options(rest, VALUED["checkout-index"])
    if "--stdin" in flags:
        reading.unread.append("git checkout-index --stdin: the paths it writes")
    for operand in operands:
        reading.add(values.get("--prefix", "") + operand, here, "git checkout-index")
    if flags & {"-a", "--all"}:
        reading.add(values.get("--prefix") or _git_top(here) or ".", here, "git checkout-index", tree=True)


def _sweep(sub: str, operands: list[str], flags: set[str], here: str | None, reading: ShellReading) -> None:
    """`git add -A|-u|DIR`, `git commit -a`: the changed protocol files they would carry are named too; and any
    `git commit`: the protocol files its index already holds apart from HEAD (staged by whatever means: a
    `read-tree`, an `update-index` the line did not show), which it would make what is in force."""
    if sub == "commit" and (not operands or flags & {"-i", "--include"}) and (top := _git_top(here)) is not None:
        # (`git commit PATHS` commits HEAD plus those paths only: the rest of the index stays out)
        from brain_tui.core.sessions.shell_git_moves import staged_protocol

        staged_protocol(top, here, reading)
    everything = not operands and (bool(flags & {"-A", "--all", "-u", "--update", "-p", "--patch"}) if sub == "add" else
                                   bool(flags & {"-a", "--all"}) if sub == "commit" else False)
    folders = [full for operand in operands if sub == "add" and is_dir(here, operand)
               and (full := join_path(here, operand)) is not None]
    top = _git_top(here) if everything or folders else None
    if top is None:
        return
    for path in _changed_protocol_files(top):
        full = os.path.join(top, path)
        if everything or any(os.path.normpath(full).startswith(os.path.normpath(f).rstrip("/") + "/") or
                             os.path.normpath(f) == os.path.normpath(top) for f in folders):
            reading.add(full, here, f"git {sub}", named=True)


def _changed_protocol_files(top: str) -> list[str]:
    """The protocol files (`layout.DATA_DIRS`, the index) changed or new in the work tree of `top`, as git lists
    them: what `git add -A`, `git add DIR` or `git commit -a` would carry. Unknown when git fails: the folders."""
    from brain_tui.core.paths.layout import DATA_DIRS, INDEX_FILE

    out = git_output(top, "status", "--porcelain", "-z", "--untracked-files=all", "--", *DATA_DIRS, INDEX_FILE)
    if out is None:
        return list(DATA_DIRS)
    return [entry[3:].decode("utf-8", "surrogateescape") for entry in out.split(b"\0") if len(entry) > 3]


def held_by_git(here: str | None, path: str) -> bool:
    """True when git's index holds `path` (a file deleted from the work tree that `git checkout PATH` restores);
    False for a branch, a commit, `-`, or when git cannot tell."""
    if path == "-" or path.startswith("@{") or here is None:
        return False
    return bool(git_output(here, "ls-files", "-z", "--", path))


def _git_top(cwd: str | None) -> str | None:
    """The work tree holding `cwd` (the nearest folder above with `.git`), or None."""
    folder = cwd
    while folder:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def _read_patch(operand: str, cwd: str | None, top: str | None, reading: ShellReading,
                index_only: bool = False) -> None:
    """The files a patch file names (`+++ b/x`, `--- a/x`), relative to the work tree's top (`index_only`: as
    paths whose record in git changes, `git apply --cached`)."""
    full = join_path(cwd, operand) if operand != "-" else None
    if full is None or top is None:
        if index_only:  # the sandbox keeps the protocol files read-only, not git's index
            reading.partial = reading.partial or "`git apply --cached` of a patch the line does not show"
        reading.unread.append("git apply: a patch read from stdin or a path that cannot be placed")
        return
    try:
        with open(full, encoding="utf-8", errors="replace") as handle:
            text = handle.read(MAX_PATCH)
    except OSError:
        if index_only:  # (one the line itself makes, too)
            reading.partial = reading.partial or "`git apply --cached` of a patch file that cannot be read"
        reading.unread.append("git apply: a patch file that cannot be read")
        return
    for match in _PATCH_PATH.finditer(text):
        path = match.group(1).strip()
        if path and path != "/dev/null":
            reading.add(path, top, "git apply", named=index_only)
