"""The process tree above this process: which coding agents run it, and what their launcher gave them (SPEC 21.1, 20.1).

A process is an agent's when an agent process (Claude Code, Codex, Gemini CLI, or
bsi's launch root, under which every launched satellite runs) is among its
ancestors (`agent_ancestors`), or when its parent exited and an adopter hides
them (a detached `bsi … &`). The claim a launcher gave an agent
(`$BSI_SESSION`, SPEC 20.5) is the agent's own word only when the agent process
itself was started with it (`launcher_claim`): an agent's shell that sets
`BSI_SESSION=<another claim>` for one command names a claim, it does not get it.

Cheap by design: the walk reads `/proc/<pid>/stat` and `/proc/<pid>/cmdline` for
at most `MAX_ANCESTORS` processes (psutil where there is no /proc), once per
process (cached by pid). Standard library only on Linux, so the hooks may import it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from brain_tui.core.paths.layout import ROOT_VARIABLE, SESSION_VARIABLE

#: Program names of the coding agents: a process named so, or an interpreter running a script named so.
AGENT_PROGRAMS = frozenset({"claude", "claude-code", "codex", "gemini", "gemini-cli"})

#: Package paths of the agents as npm installs them (`node …/@anthropic-ai/claude-code/cli.js`).
AGENT_PACKAGES = ("@anthropic-ai/claude-code", "@google/gemini-cli", "@openai/codex")

#: Interpreters whose first script argument names the program really running.
INTERPRETERS = frozenset({"node", "nodejs", "bun", "deno", "sh", "bash", "dash", "zsh", "ksh", "fish",
                          "python", "python3", "env"})

#: bsi's launch root (`core.sessions.launch_root`): every launched command runs under it, so it is an agent process.
LAUNCH_ROOT_SCRIPT = "/brain_tui/core/sessions/launch_root.py"
#: The name its evidence gives it (``ancestor process bsi-launch (pid 812)``).
LAUNCH_ROOT_NAME = "bsi-launch"

#: How far up the process tree the walk goes (a deeper agent is a pathological tree).
MAX_ANCESTORS = 64

_SESS_RE = re.compile(r"^sess-[A-Za-z0-9._-]+\Z")
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "fish", "ash", "tcsh", "csh"})
_INLINE_CODE = frozenset({"-c", "-m", "-e", "--eval", "-p", "--print"})
#: The most of an agent's environment read to find one variable (a pathological environment is not the agent's word).
_ENVIRON_LIMIT = 1 << 20
#: What `_environ_value` answers for a variable past `_ENVIRON_LIMIT` when asked to tell (no value can hold NUL).
_UNREAD = "\0"

_ANCESTORS: dict[int, tuple[str, ...]] = {}
_NEAREST: dict[int, int | None] = {}


def launcher_claim(environ: Mapping[str, str], root: str | os.PathLike[str] | None = None) -> str | None:
    """The claim `$BSI_SESSION` names in `environ`, when it is the agent's own word (SPEC 20.1, 21.4); else None.

    A launcher (`bsi launch`, a pilot's script) starts the agent with the variable set, so the agent
    process carries it. A value set below the agent (its shell running `BSI_SESSION=sess-… bsi …`, or
    `bsi mcp` started from that shell) names another session's claim without holding it, and counts
    for nothing. With no agent process above, the value counts unless the process was orphaned (its
    ancestors, so whose word it is, are unknown). Unset or not a session ID: None. Given the brain at
    `root` the claim is looked up in, the value counts only when the launch was for that brain
    (`launched_for`).
    """
    value = environ.get(SESSION_VARIABLE, "").strip()
    if not _SESS_RE.match(value):
        return None
    agent = nearest_agent()
    if agent is not None:
        named = value if _environ_value(agent, SESSION_VARIABLE) == value else None
    else:
        named = None if _adopter(os.getppid()) else value
    return named if named is None or root is None or launched_for(root) else None


def launched_for(root: str | os.PathLike[str]) -> bool:
    """False when an agent process above this one was started for another brain than the one at `root` (the
    `$BRAIN_ROOT` `bsi launch` gives it, SPEC 20.5): the claim its `$BSI_SESSION` names is that brain's, not one
    of the same ID here (an agent can write a claim under any ID in a brain of its own, and launch from it)."""
    here = os.path.realpath(os.fspath(root))
    for pid, name in _walk(os.getpid()):
        if not name:
            continue
        named = _environ_value(pid, ROOT_VARIABLE, unread=_UNREAD)
        if named == _UNREAD:
            return False  # the brain it was launched for lies past what is read of its environment: unknown
        if named and os.path.isabs(named) and os.path.realpath(named) != here:
            return False
    return True


def nearest_agent() -> int | None:
    """The PID of the nearest agent process among this process's ancestors, or None (cached by pid)."""
    pid = os.getpid()
    if pid not in _NEAREST:
        _NEAREST[pid] = next((ppid for ppid, name in _walk(pid) if name), None)
    return _NEAREST[pid]


def _environ_value(pid: int, name: str, unread: str | None = None) -> str | None:
    """`name` in the environment process `pid` was started with, or None (unset or unreadable); `unread` when it
    is not in the part read and the environment is longer (`_ENVIRON_LIMIT`)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            raw = handle.read(_ENVIRON_LIMIT + 1)
    except OSError:
        if os.path.isdir("/proc/self"):
            return None
        try:
            import psutil

            found = psutil.Process(pid).environ().get(name)
        except Exception:  # noqa: BLE001 - no psutil, no such process, no access: not the agent's word
            return None
        return None if found is None else str(found).strip()
    prefix = name.encode() + b"="
    cut = len(raw) > _ENVIRON_LIMIT
    entries = raw[:_ENVIRON_LIMIT].split(b"\0")
    for entry in entries[:-1] if cut else entries:  # the last entry of a cut read may be cut itself
        if entry.startswith(prefix):
            return entry[len(prefix):].decode("utf-8", "replace").strip()
    return unread if cut else None


def agent_ancestors() -> tuple[str, ...]:
    """Evidence for each agent process among this process's ancestors (``ancestor process claude (pid 812)``).

    Computed once per process (cached by pid, so a forked child walks its own tree).
    """
    pid = os.getpid()
    found = _ANCESTORS.get(pid)
    if found is None:
        found = tuple(f"ancestor process {name} (pid {ppid})" for ppid, name in _walk(pid) if name)
        adopter = _adopter(os.getppid())
        if adopter:
            found += (f"orphaned process: its parent exited and {adopter} adopted it, so whose it is is unknown",)
        _ANCESTORS[pid] = found
    return found


def _adopter(ppid: int) -> str | None:
    """The process that adopted this one when its parent exited (a detached `bsi … &`), or None.

    Adopted means: the parent is pid 1 and pid 1 is not a shell (a container whose pid 1 is a
    shell runs a human's commands as its children), or the parent is a `systemd` user manager
    (the subreaper that adopts orphans on desktop systems). A process whose parent exited hides
    its ancestors, so it is not a human's terminal.
    """
    if ppid == 1:
        name = _comm(1)
        return None if name is None or _program(name) in _SHELLS else f"pid 1 ({name})"
    name = _comm(ppid)
    return f"the subreaper {name} (pid {ppid})" if name == "systemd" else None


def _comm(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/comm", "rb") as handle:
            return handle.read().decode("utf-8", "replace").strip()
    except OSError:
        try:
            import psutil

            return str(psutil.Process(pid).name())
        except Exception:  # any failure: unknown, so not adopted
            return None


def _walk(pid: int) -> Iterable[tuple[int, str | None]]:
    """``(pid, agent program name or None)`` for each ancestor of `pid`, nearest first, at most MAX_ANCESTORS."""
    if os.path.isdir("/proc/self"):
        current = _proc_parent(pid)
        for _ in range(MAX_ANCESTORS):
            if current is None or current <= 1:
                return
            yield current, _proc_agent_name(current)
            current = _proc_parent(current)
        return
    yield from _psutil_walk(pid)


def _proc_parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # "pid (comm) state ppid …": comm may hold spaces or parentheses, so split after the last ')'
    fields = stat[stat.rfind(b")") + 2:].split()
    try:
        return int(fields[1])
    except (IndexError, ValueError):
        return None


def _proc_agent_name(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/comm", "rb") as handle:
            comm = handle.read().decode("utf-8", "replace").strip()
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv = [a.decode("utf-8", "replace") for a in handle.read(8192).split(b"\0") if a]
    except OSError:
        return None
    return agent_program(comm, argv)


def _psutil_walk(pid: int) -> Iterable[tuple[int, str | None]]:
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil is a dependency
        return
    try:
        process = psutil.Process(pid).parent()
        for _ in range(MAX_ANCESTORS):
            if process is None or process.pid <= 1:
                return
            try:
                name, argv = process.name(), process.cmdline()
            except (psutil.AccessDenied, psutil.ZombieProcess):
                name, argv = "", []
            yield process.pid, agent_program(name, argv)
            process = process.parent()
    except (psutil.Error, OSError):
        return


def _program(path: str) -> str:
    base = path.rstrip("/").rsplit("/", 1)[-1].lower()
    for suffix in (".js", ".mjs", ".cjs", ".exe"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return base


def agent_program(comm: str, argv: list[str]) -> str | None:
    """The agent a process is (``claude``, ``codex``, ``gemini``), from its name and command line, or None.

    A process named after an agent, an argv[0] naming one, or an interpreter (node, a shell,
    python) whose script is one or lives in an agent's npm package; or bsi's launch root, which
    every launched command runs under (``bsi-launch``).
    """
    if any(arg.replace(os.sep, "/").endswith(LAUNCH_ROOT_SCRIPT) for arg in argv[1:3]):
        return LAUNCH_ROOT_NAME  # `python -I …/launch_root.py --exec …`: a launched satellite, whoever launched it
    names = [_program(comm)]
    if argv:
        names.append(_program(argv[0]))
    for name in names:
        if name in AGENT_PROGRAMS:
            return name
    if argv and _program(argv[0]) in INTERPRETERS or _program(comm) in INTERPRETERS:
        for arg in argv[1:4]:
            if arg in _INLINE_CODE:
                break  # `python -c CODE`, `node -e CODE`, `python -m MODULE`: no script file
            if arg.startswith("-"):
                continue
            if _program(arg) in AGENT_PROGRAMS:
                return _program(arg)
            for package in AGENT_PACKAGES:
                if package in arg:
                    return package.rsplit("/", 1)[-1]
            break
    return None
