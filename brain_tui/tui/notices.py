"""The cockpit's word to a pilot who is away: desktop-notice escapes and the `notify:` command.

The rule (what is new, what was told, the argv) is `core.notify`, reached through `Brain.notifier()`; here the cockpit
decides and remembers what is new (`notified.json`, under its lock) and runs the commands in a thread worker with a time
limit, so the screen never waits on the file or a command; the escapes are written through Textual's driver from the UI
thread. A failing command is told once, as a toast.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from brain_tui.core.rules.attention import AttentionItem, describe_time_left
from brain_tui.core.sessions.notify import Notice, desktop_escapes, run_command

from .present import short_id
from .safe import safe_str

if TYPE_CHECKING:
    from .app import BrainApp


class DesktopNotices:
    """Tells each new attention item once: a desktop notice on the terminal, and the `notify:` command."""

    def __init__(self, app: BrainApp) -> None:
        """Args: app: the cockpit (its `bell_enabled` is `--no-bell`'s switch for all of this)."""
        self.app = app
        self.notifier = app.brain.notifier()
        self.failure_told = False
        app.brain.on_lock_wait = self.lock_wait

    def lock_wait(self, note: str) -> None:
        """A write kept waiting on the brain's writer lock (`Brain.on_lock_wait`, called in the write's worker
        thread): a toast naming who holds it, hostile text made inert; the write goes on once it is free."""
        from functools import partial

        toast = partial(self.app.notify, safe_str(note, None), title="waiting", severity="warning", markup=False,
                        timeout=30)
        try:
            self.app.call_from_thread(toast)
        except RuntimeError:  # (on the UI thread itself)
            toast()

    def start(self, queue: Sequence[AttentionItem]) -> None:
        """The items there when the cockpit opens are remembered, never told; a bad `notify:` is shown once."""
        if not self.app.bell_enabled:
            return
        items = list(queue)
        self.app.run_worker(lambda: self.notifier.starting(items), thread=True, group="notify",
                            exit_on_error=False)
        problem = self.notifier.setting.problem
        if problem:
            self.app.notify(problem, title="notify", severity="warning", markup=False, timeout=10)

    def alert(self, queue: Sequence[AttentionItem]) -> None:
        """Bell, toast and desktop notice (`announce`) for what is new: a new item, or one in its last 15 min."""
        app = self.app
        keys = alert_keys(queue)
        previous, app._alert_keys = app._alert_keys, keys
        if previous is None:
            return
        new = keys - previous
        if not new:
            return
        if app.bell_enabled:
            app.bell()
        self.announce(queue, new)
        warned = [i for i in queue if i.warning and f"warn:{i.key}" in new]
        from .describe import expiry_hint  # not imported at start: only a warning uses it

        for item in warned[:1]:  # the first one only
            who = short_id(item.sess_id, app.snapshot.now, app.snapshot.tz) if item.sess_id else "?"
            hint = expiry_hint(app.snapshot.claim(item.sess_id) if item.sess_id else None, app.snapshot.now)
            app.notify(f"{item.kind} {who}: {describe_time_left(item.time_left)}{hint}",
                       title="expiring", severity="error", markup=False, timeout=10)
        fresh = len([key for key in new if not key.startswith("warn:")])
        if fresh:
            app.notify(f"{fresh} new item{'s' if fresh > 1 else ''} waiting for a human — n goes to it, g lists all",
                       title="needs you", severity="warning", markup=False)

    def announce(self, queue: Sequence[AttentionItem], new_keys: Collection[str]) -> None:
        """Tell the items of `queue` whose key is in `new_keys` and was never told before."""
        if not self.app.bell_enabled:
            return
        items = [item for item in queue if item.key in new_keys]
        if items:
            self.app.run_worker(lambda: self._tell(items), thread=True, group="notify", exit_on_error=False)

    def _tell(self, items: Sequence[AttentionItem]) -> None:
        """Worker thread: claim the items never told (the locked log), write their notice, run the commands."""
        notices = self.notifier.fresh(items)
        if not notices:
            return
        self.app.call_from_thread(self.write, self.escapes(notices))
        self._run([notice.argv for notice in notices if notice.argv])

    @staticmethod
    def escapes(notices: Sequence[Notice]) -> str:
        """One desktop notice for what arrived (one item: its kind and summary; more: how many)."""
        if len(notices) == 1:
            title, body = notices[0].title, notices[0].body
        else:
            kinds = ", ".join(dict.fromkeys(notice.title.removeprefix("BSI: ") for notice in notices))
            title, body = "BSI", f"{len(notices)} new items waiting for a human ({kinds})"
        return desktop_escapes(title, body, tmux=bool(os.environ.get("TMUX")))

    def write(self, text: str) -> None:
        """Write escape sequences to the terminal, as the bell is written (nothing without a driver)."""
        driver = self.app._driver
        if driver is not None:
            driver.write(text)

    def _run(self, commands: Sequence[tuple[str, ...]]) -> None:
        """Worker thread: run each command in turn; the first failure comes back as one toast."""
        for argv in commands:
            problem = run_command(argv)
            if problem and not self.failure_told:
                self.failure_told = True
                self.app.call_from_thread(self.app.notify, problem, title="notify", severity="error",
                                          markup=False, timeout=10)


def alert_keys(queue: Sequence[AttentionItem]) -> frozenset[str]:
    """What the bell compares: one key per item, plus one per item close to expiry."""
    return frozenset({item.key for item in queue} | {f"warn:{item.key}" for item in queue if item.warning})


def tell_setting_problems(app: BrainApp) -> None:
    """At start: each theme skipped, and what `bsi` warns of brain-compose.yml on every read (a file that does not
    parse, a `timezone:` or `sync:` not read as written), one toast each."""
    for problem in app.theme_problems:
        app.notify(safe_str(problem), title="theme skipped", severity="warning", markup=False)
    for note in app.brain.config.warnings():
        app.notify(safe_str(note), title="brain-compose.yml", severity="warning", markup=False, timeout=12)
