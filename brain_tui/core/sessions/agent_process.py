"""Which agent process a hook or an MCP server runs under: the nearest ancestor that is not a shell or a wrapper.

A hook command may be `bsi hook …` itself, `sh -c "bsi hook …"`, a wrapper
script (`.claude/hooks/bsi.sh`, run through its shebang), `env …`, `uv run
…` or `python -m brain_tui.cli.main …`: each of those is skipped, whatever its
name, because the executable behind it (`/proc/PID/exe`) is a shell or an
interpreter. The first ancestor that is none of them is the agent (Claude
Code, Gemini CLI, Codex): it lives as long as the agent does, across `/clear`
and compaction, and an agent's shell cannot pass itself off as another
agent's process. The ID is ``PID:START`` (start time in clock ticks since
boot), so a reused PID is another process. On Linux it also names the boot
(``PID:START:BOOT``, the kernel's boot ID): after a reboot a new process can get
an old one's PID and start ticks, and it is still another process, never the
agent an earlier boot recorded. Elsewhere START is `psutil`'s wall-clock start,
already another after a reboot.

A record written before the boot ID was kept holds ``PID:START`` alone
(`current_form`): it names its process in the boot that wrote it (the file's
time is not before this boot), and no process in any later one.

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
#: The kernel's random ID of this boot (Linux).
BOOT_ID_PATH = "/proc/sys/kernel/random/boot_id"
_BOOT_ID = re.compile(r"^[0-9A-Fa-f-]{8,64}$")
#: An ID as Linux gave it before the boot was named: ``PID:START`` in clock ticks.
_TICKS_ONLY = re.compile(r"^[0-9]+:[0-9]+$")
#: What an ID of an earlier boot reads as: equal to no live process's.
EARLIER_BOOT = "earlier-boot"
#: Seconds of rounding between a file's time and this boot's start (`/proc/stat` btime is whole seconds).
BOOT_SLACK_S = 2.0
_boot: list[str] = []


def boot_id() -> str:
    """This boot's ID (Linux), "" when it does not read; read once per process."""
    if not _boot:
        try:
            with open(BOOT_ID_PATH, encoding="ascii", errors="replace") as handle:
                value = handle.read(128).strip()
        except OSError:
            value = ""
        _boot.append(value if _BOOT_ID.match(value) else "")
    return _boot[0]


def boot_time() -> float | None:
    """This boot's wall-clock start (`/proc/stat` btime), None when it does not read."""
    try:
        with open("/proc/stat", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def current_form(value: str, written_at: float | None) -> str:
    """A recorded agent process ID as this boot reads it.

    ``PID:START`` alone (ticks, written before the boot was named) becomes
    ``PID:START:BOOT`` of this boot when it was written in this boot (`written_at`,
    the record's file time, not before this boot's start), else ``PID:START:earlier-boot``,
    which no live process is. Any other value, or any value when this boot has no ID
    (then no ID names a boot), is kept.
    """
    if not _TICKS_ONLY.match(value) or not (boot := boot_id()):
        return value
    started = boot_time()
    this_boot = written_at is not None and started is not None and written_at >= started - BOOT_SLACK_S
    return f"{value}:{boot if this_boot else EARLIER_BOOT}"


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
    """``PID:START`` (Linux: ``PID:START:BOOT``) of the agent process above `start` (default: this process's
    parent), or "" when unknown.

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
            boot = boot_id() if read is _proc_entry else ""
            return f"{pid}:{started}:{boot}" if boot else f"{pid}:{started}"
        pid = parent
    return ""
