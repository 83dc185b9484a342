"""A write kept waiting on the brain's writer lock says who holds it (`records.lock_holders`).

Any process that can open `.brain/lock` can `flock` it, an agent's program too (its sandbox keeps `.brain/`
read-only, which still lets it open the file): every write then waits, a human's pause included. The wait is
never silent: past a moment the command names the holder and how to end it, and goes on once it is gone.
"""

from __future__ import annotations

import select
import subprocess
import sys
from pathlib import Path

from brain_tui.core.records.lock_holders import holders
from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi

_HOLD = ("import fcntl, sys, time\n"
         "handle = open(sys.argv[2], 'rb')\n"
         "fcntl.flock(handle.fileno(), fcntl.LOCK_SH)\n"
         "print('held', flush=True)\n"
         "time.sleep(600)\n")


def test_a_pause_waiting_on_a_held_writer_lock_names_the_holder_and_goes_on_once_it_ends(tmp_path: Path) -> None:
    root = tmp_path / "brain"
    ok(run_bsi("init", str(root), now=None))
    sess = ok(run_bsi("claim", "open", "--scope", "wiki/", "--slug", "runaway", brain=root)).strip()
    lock = root / ".brain" / "lock"
    # a holder whose command line carries an escape sequence: it reaches the terminal inert
    script = tmp_path / "hold.py"
    script.write_text(_HOLD)
    holder = subprocess.Popen([sys.executable, str(script), "\x1b[2Jwipe", str(lock)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert holders(lock) == [holder.pid]
        pause = subprocess.Popen(bsi_command("gate", "pause", sess, "stop", brain=root, now=NOW), text=True,
                                 stderr=subprocess.PIPE, stdout=subprocess.PIPE, env=clean_env())
        assert pause.stderr is not None
        # the command waits, and says so, before it goes on (a hang guard, not a timing: it says it within 1 s)
        assert select.select([pause.stderr], [], [], 30)[0], "the wait was silent"
        told = pause.stderr.readline()
        assert f"waiting for the brain's writer lock: pid {holder.pid} (" in told, told
        assert f"`kill {holder.pid}`" in told and "\x1b" not in told and "wipe" in told, told
        assert pause.poll() is None  # still waiting: nothing written while the lock is held
    finally:
        holder.kill()
        holder.wait()
    out, err = pause.communicate(timeout=60)
    assert pause.returncode == 0, err
    assert "paused" in out
    assert holders(lock) == []


def test_the_holder_list_reads_the_kernels_table(tmp_path: Path) -> None:
    """`/proc/locks` lines: a holder's, another file's, and a waiter's ("->"), which holds nothing yet. A holder is
    a live process with the file open (this one, here)."""
    lock = tmp_path / "lock"
    lock.write_text("")
    st = lock.stat()
    import os

    key = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    table = tmp_path / "locks"
    table.write_text(f"1: FLOCK  ADVISORY  WRITE {os.getpid()} {key} 0 EOF\n"
                     f"1: -> FLOCK  ADVISORY  WRITE 5151 {key} 0 EOF\n"
                     f"2: POSIX  ADVISORY  READ 777 {key}0 0 EOF\n"
                     "3: garbage\n")
    with lock.open("rb"):
        assert holders(lock, str(table)) == [os.getpid()]
    assert holders(tmp_path / "absent", str(table)) == []


_HANDED_ON = ("import fcntl, os, sys, time\n"
              "handle = open(sys.argv[1], 'rb')\n"
              "fcntl.flock(handle.fileno(), fcntl.LOCK_EX)\n"
              "child = os.fork()\n"
              "if child == 0:\n"
              "    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
              "    time.sleep(600)\n"
              "    os._exit(0)\n"
              "print(child, flush=True)\n")


def test_a_lock_whose_taker_is_gone_names_the_process_that_keeps_it(tmp_path: Path) -> None:
    """The kernel's table names the process that took the lock; a child that inherited it keeps it once that one
    exits. The note names the child, never the gone pid (reused, `kill` would end another program)."""
    import os
    import signal

    lock = tmp_path / "lock"
    lock.write_text("")
    script = tmp_path / "hand_on.py"
    script.write_text(_HANDED_ON)
    taker = subprocess.run([sys.executable, str(script), str(lock)], stdout=subprocess.PIPE, text=True, check=True,
                           timeout=60)
    child = int(taker.stdout)
    try:
        assert holders(lock) == [child]
    finally:
        os.kill(child, signal.SIGKILL)


def test_a_wait_note_that_cannot_be_said_never_stops_the_write(tmp_path: Path) -> None:
    """The note goes to stderr (or a toast): a closed stderr (a broken pipe) must not turn a pause into a refusal."""
    import fcntl
    import os

    from brain_tui.core.write_path import _take

    lock = tmp_path / "lock"
    lock.write_text("")
    script = tmp_path / "hold.py"
    script.write_text(_HOLD)
    holder = subprocess.Popen([sys.executable, str(script), "x", str(lock)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"

    def tell(note: str) -> None:
        holder.kill()
        holder.wait()
        raise BrokenPipeError(32, "Broken pipe")

    fd = os.open(lock, os.O_RDONLY)
    try:
        _take(fd, tell, lock)  # the note fails; the lock is taken all the same once free
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
        holder.kill()
        holder.wait()
