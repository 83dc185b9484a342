"""Who holds the brain's writer lock (`.brain/lock`), for a person kept waiting on it.

Every bsi write takes the lock for the moment it writes; a sync holds it across its fetch and push. Any process
that can open the file can `flock` it too, an agent's program included (a sandbox that keeps `.brain/` read-only
still lets it open the file to read), and while it holds it every write waits, a human's pause too. The kernel
lists each lock it keeps, with the process that took it and the file's device and inode (`/proc/locks` on Linux):
a person told "pid 4242 (`flock .brain/lock sleep infinity`) holds it" can end that process. Where the list is not
kept (macOS), the note says the lock is held and how to find its holder.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["holders", "waiting_note"]

#: The kernel's list of the locks it keeps (Linux).
_PROC_LOCKS = "/proc/locks"


def holders(lock: Path, table: str = _PROC_LOCKS) -> list[int]:
    """The IDs of the processes holding a lock on `lock` now (never those only waiting for one), as the kernel's
    `table` lists them; [] when the table or the file cannot be read."""
    try:
        st = os.stat(lock)
        with open(table, encoding="ascii", errors="replace") as handle:
            lines = handle.read(1 << 20).splitlines()
    except OSError:
        return []
    wanted = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    found: set[int] = set()
    waiting: set[int] = set()
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF"; a waiter's line has "->" after its number
        if len(fields) >= 6 and fields[1] != "->" and fields[5] == wanted and fields[4].isdigit():
            found.add(int(fields[4]))
        elif len(fields) >= 7 and fields[1] == "->" and fields[6] == wanted and fields[5].isdigit():
            waiting.add(int(fields[5]))
    key = (st.st_dev, st.st_ino)
    kept = {pid for pid in found if _opens(pid, key) is not False}
    if found and not kept:
        # the kernel names the process that took the lock: once it is gone (its pid free for another program), a
        # process that inherited the open file keeps the lock, one of those with the file open and not waiting
        kept = {pid for pid in _openers(key) if pid not in waiting and pid != os.getpid()}
    return sorted(kept)


def _opens(pid: int, key: tuple[int, int]) -> bool | None:
    """Whether process `pid` has the file `key` (device, inode) open now; None when its files cannot be listed
    (another user's process: the kernel's word is kept)."""
    try:
        entries = list(os.scandir(f"/proc/{pid}/fd"))
    except FileNotFoundError:
        return False  # gone
    except OSError:
        return None
    for entry in entries:
        try:
            st = os.stat(entry.path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == key:
            return True
    return False


def _openers(key: tuple[int, int]) -> list[int]:
    """The processes whose open files can be listed that have the file `key` open."""
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    return [pid for pid in pids if _opens(pid, key)]


def _described(pid: int) -> str:
    """`pid N (`its command line`)`, the command as the process shows it: hostile text, made one inert line."""
    try:
        import psutil

        words = psutil.Process(pid).cmdline()
    except Exception:  # noqa: BLE001 - gone, not ours to read, or no psutil answer: the pid alone
        return f"pid {pid}"
    from brain_tui.core.paths.text_safety import inert_line

    line = inert_line(words, 160)
    return f"pid {pid} (`{line}`)" if line else f"pid {pid}"


def held_too_long(lock: Path, waited: float) -> str:
    """The refusal of a write that waited `waited` seconds on the writer lock (`Brain.lock_patience`): who holds it,
    that nothing was written, and that the same call goes through once it is free."""
    found = [pid for pid in holders(lock) if pid != os.getpid()]
    who = ", ".join(_described(pid) for pid in found[:3]) if found else "another process"
    return (f"the brain's writer lock stayed held for {waited:g} s ({who} holds it); nothing was written: try again "
            "in a moment (a bsi write holds it for seconds, a sync within the network timeout; a process that keeps "
            "it longer keeps every write waiting: a human can end it)")


def waiting_note(lock: Path) -> str:
    """What a person kept waiting on the writer lock is told: who holds it, and what ends the wait."""
    found = [pid for pid in holders(lock) if pid != os.getpid()]
    if not found:
        return (f"waiting for the brain's writer lock ({lock}): another process holds it; a bsi write ends in "
                f"seconds, a sync within the network timeout. `fuser {lock}` names a process that keeps it longer: "
                "every write waits for it, a pause too")
    who = ", ".join(_described(pid) for pid in found[:3])
    return (f"waiting for the brain's writer lock: {who} holds it; a bsi write ends in seconds, a sync within the "
            f"network timeout. A process that keeps it longer keeps every write waiting, a pause too: end it "
            f"(`kill {found[0]}`)")
