"""A lost terminal ends the cockpit at any moment of its life — start-up included — and removes its demo brain.

SIGHUP is handled from the first line of `main` (before the demo brain is built, before Textual starts). Before the app
runs, a hang-up removes what was made and leaves at once. While it runs, the app is asked to exit (129); a guard thread
then makes sure the process really ends: if it is still alive after `GRACE_S` (a worker blocked on a dead terminal, a
thread that never joins), it waits for any brain write in progress (the cockpit's write lock), removes the demo folder
and ends the process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import threading
from types import FrameType
from typing import Any

#: Exit code when the terminal went away.
EXIT_HANGUP = 129
#: Seconds a hung-up cockpit has to end on its own before the guard ends it.
GRACE_S = 3.0
#: Seconds the guard waits for a brain write in progress (an atomic write and its commit) to finish.
WRITE_WAIT_S = 10.0


class HangUp:
    """The process's SIGHUP handler: install it first, then tell it the demo folder and the app."""

    def __init__(self) -> None:
        self.demo_dir: str | None = None
        self.app: Any = None
        self.hung_up = threading.Event()

    def install(self) -> None:
        """Handle SIGHUP (and a closed terminal's SIGTERM-free death) from now on.

        The guard thread starts here, not in the handler: a handler runs between two bytecodes of the main
        thread, which may hold `threading`'s own locks (Textual starting its threads), and a thread started
        there would wait for them forever.
        """
        with contextlib.suppress(ValueError, OSError):  # not the main thread, or no SIGHUP on this platform
            signal.signal(signal.SIGHUP, self._on_signal)
            threading.Thread(target=self._guard, name="brain-tui-hangup", daemon=True).start()

    def cleanup(self) -> None:
        """Remove the demo brain (safe to call twice)."""
        if self.demo_dir:
            shutil.rmtree(self.demo_dir, ignore_errors=True)

    def cleanup_at_start_up(self) -> None:
        """Stop what the demo's build started (a `git` still writing its objects), then remove the demo brain.

        A child left running would write into the folder after it is removed, and the folder would stay.
        """
        with contextlib.suppress(Exception):
            import psutil

            children = psutil.Process().children(recursive=True)
            for child in children:
                with contextlib.suppress(psutil.Error):
                    child.kill()
            psutil.wait_procs(children, timeout=2.0)
        self.cleanup()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.hung_up.is_set():
            return
        self.hung_up.set()
        app = self.app
        loop = getattr(app, "_loop", None) if app is not None else None
        if app is None or loop is None or not getattr(app, "is_running", False):
            # Start-up (building the demo brain, reading it, Textual not yet drawing): nothing to restore.
            try:
                self.cleanup_at_start_up()
            finally:
                os._exit(EXIT_HANGUP)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(app.hang_up)

    def _guard(self) -> None:
        """Once hung up, end the process if the app did not end on its own within `GRACE_S`."""
        self.hung_up.wait()
        threading.Event().wait(GRACE_S)
        lock = getattr(self.app, "_write_lock", None)
        if lock is not None and lock.acquire(timeout=WRITE_WAIT_S):
            pass  # held until the process ends: no new write starts
        self.cleanup()
        os._exit(EXIT_HANGUP)
