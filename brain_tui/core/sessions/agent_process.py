"""Which agent process a hook or an MCP server runs under: the nearest ancestor that is not a shell or a wrapper.

A hook command may be `bsi hook …` itself, `sh -c "bsi hook …"`, a wrapper
script (`.claude/hooks/bsi.sh`, run through its shebang), `env …`, `uv run
…` or `python -m brain_tui.cli.main …`: each of those is skipped, whatever its
name, because the executable behind it (`/proc/PID/exe`) is a shell or an
interpreter. The first ancestor that is none of them is the agent (Claude
Code, Gemini CLI, Codex): it lives as long as the agent does, across `/clear`
and compaction, and an agent's shell cannot pass itself off as another
agent's process. The ID is ``PID:START`` (start time in clock ticks since
boot), so a reused PID is another process.

Linux reads `/proc`; elsewhere `psutil` is asked. Standard library only on
Linux, so a hook pays nothing more than a few small reads.
"""

from __future__ import annotations

import os
import re

#: Executables that only run something else: a process of one of these is never the agent.
WRAPPERS = frozenset({
    "sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "ash", "tcsh", "csh", "busybox",
    "env", "timeout", "nice", "nohup", "stdbuf", "setsid", "time", "flock", "chrt", "ionice", "taskset",
    "exec", "xargs", "bwrap", "firejail", "uv", "uvx", "pipx", "poetry", "pdm", "hatch", "rye", "conda",
    "bsi",
})
#: Interpreters (python3.12, pypy3…) count as wrappers too: `bsi` itself is one.
_INTERPRETER = re.compile(r"^(?:python|pypy)[0-9.]*(?:-dbg)?$")
#: How far up the tree the walk goes before it gives up.
MAX_DEPTH = 16


def is_wrapper(name: str) -> bool:
    """True when a process called `name` (its command or its executable's basename) only runs another one."""
    base = os.path.basename(name.strip())
    return base in WRAPPERS or bool(_INTERPRETER.match(base))


def _proc_entry(pid: int) -> tuple[str, int, str, str] | None:
    """``(command name, parent PID, start time, executable basename)`` from `/proc`, or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return None
    name = stat[stat.find("(") + 1: stat.rfind(")")]
    rest = stat[stat.rfind(")") + 2:].split()
    if len(rest) < 20:
        return None
    try:
        exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        exe = ""
    exe = exe.removesuffix(" (deleted)")
    try:
        parent = int(rest[1])
    except ValueError:
        return None
    return name, parent, rest[19], exe


def _psutil_entry(pid: int) -> tuple[str, int, str, str] | None:
    """The same from `psutil` (macOS, BSD), or None."""
    try:
        import psutil

        proc = psutil.Process(pid)
        with proc.oneshot():
            name, parent, start = proc.name(), proc.ppid(), proc.create_time()
            try:
                exe = os.path.basename(proc.exe())
            except (psutil.Error, OSError):
                exe = ""
    except Exception:  # noqa: BLE001 - no psutil, no such process, no access: the process is unknown
        return None
    return name, parent, f"{start:.3f}", exe


def agent_process(start: int | None = None) -> str:
    """``PID:START`` of the agent process above `start` (default: this process's parent), or "" when unknown.

    The walk begins at `start` itself and goes up past every shell, wrapper and
    interpreter (`is_wrapper` of the command name or of the executable); it
    stops at PID 1 (no agent above) or after `MAX_DEPTH` steps.
    """
    pid = os.getppid() if start is None else start
    read = _proc_entry if os.path.isdir("/proc/self") else _psutil_entry
    for _ in range(MAX_DEPTH):
        if pid <= 1:
            return ""
        entry = read(pid)
        if entry is None:
            return ""
        name, parent, started, exe = entry
        if not is_wrapper(name) and not (exe and is_wrapper(exe)):
            return f"{pid}:{started}"
        pid = parent
    return ""
