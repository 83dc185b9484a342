"""The cockpit's data sources beside the snapshot (environment, breath, sync, verify, lint), over the `Brain` facade.

These run in thread workers (they may start subprocesses) and never raise:
they answer ``(data, note)`` where `note` says why there is no data.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError
from brain_tui.core.records.model import BrainSnapshot, Claim

if TYPE_CHECKING:
    from brain_tui.core.environment.breath_metrics import SprintMetrics
    from brain_tui.core.environment.env import EnvState
    from brain_tui.core.records.headers import Finding
    from brain_tui.core.rules.reconcile import SyncReport
    from brain_tui.core.sync.audit import DriftReport
    from brain_tui.core.sync.remote import SyncStatus

T = TypeVar("T")

#: Seconds a slow source (the environment, lint) may take before the cockpit says it timed out.
SOURCE_TIMEOUT_S = 20.0


class SourceTimeout(Exception):
    """A source did not answer within its time limit (its thread is left to finish on its own)."""


class Bounded:
    """Run a slow source in a daemon thread with a time limit, one call at a time.

    A call that times out keeps running in its thread (threads cannot be killed); until it ends, a new call answers at
    once with `SourceTimeout` instead of starting a second thread, so a hung source never piles threads up.
    """

    def __init__(self, name: str, timeout_s: float = SOURCE_TIMEOUT_S) -> None:
        self.name = name
        self.timeout_s = timeout_s
        self._running: threading.Thread | None = None

    def __call__(self, fn: Callable[[], T]) -> T:
        """Call `fn()` and return its answer (or raise what it raised); `SourceTimeout` after `timeout_s`, or while
        the previous call still runs."""
        if self._running is not None and self._running.is_alive():
            raise SourceTimeout(f"{self.name}: the previous reading has not finished (over {self.timeout_s:g} s)")
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["value"] = fn()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                box["error"] = exc

        thread = threading.Thread(target=run, name=f"brain-tui-{self.name}", daemon=True)
        self._running = thread
        thread.start()
        thread.join(self.timeout_s)
        if thread.is_alive():
            raise SourceTimeout(f"{self.name}: no answer after {self.timeout_s:g} s")
        self._running = None
        if "error" in box:
            raise box["error"]
        return box["value"]  # type: ignore[no-any-return]


def _answer(what: str, read: Callable[[], T], *, core_words: bool = True) -> tuple[T | None, str]:
    """``(read(), "")``, or ``(None, why not)``: a core refusal in its own words (unless not `core_words`), any
    other failure named by its class — a failing source must never stop the cockpit."""
    try:
        return read(), ""
    except Exception as exc:  # noqa: BLE001
        if core_words and isinstance(exc, BsiError):
            return None, f"{what}: {exc.message}"
        return None, f"{what}: {exc.__class__.__name__}: {exc}"


def collect_env(brain: Brain) -> tuple[EnvState | None, str]:
    """The environment of the brain's machine (SPEC 16), via `Brain.env`."""
    return _answer("environment", lambda: brain.env(), core_words=False)


def breath_of(brain: Brain, snapshot: BrainSnapshot) -> tuple[tuple[SprintMetrics, ...] | None, str]:
    """Breath metrics of every sprint (SPEC 17), oldest first, from the records the snapshot holds
    (`Brain.breath.metrics`); the note counts unreadable breath files."""
    try:
        found = brain.breath.metrics(snapshot=snapshot)
    except Exception as exc:  # noqa: BLE001 - a failing source must never stop the cockpit
        return None, f"breath: {exc.__class__.__name__}: {exc}"
    note = f"{len(found.corrupt)} unreadable breath file(s)" if found.corrupt else ""
    return found.sprints, note


def sync_function(brain: Brain) -> tuple[Callable[[Brain], SyncReport] | None, str]:
    """`brain.remote.sync` when the brain has a remote (the one hook for `s`), else None and why sync is not
    possible."""
    try:
        if not brain.remote.has_remote():
            return None, ("sync not configured: this brain has no git remote — add one "
                          "(git remote add origin URL, in the brain's folder), then s syncs")
    except BsiError as exc:
        return None, f"sync: {exc.message}"
    return lambda b: b.remote.sync(), ""


def claim_git_log(brain: Brain, claim: Claim) -> list[str]:
    """The claim's audit trail (`Brain.audit.log`, as `bsi log ID`), newest first, as ``"<sha> <message>"``."""
    try:
        entries = brain.audit.log(claim.sess_id, limit=50)
    except BsiError as exc:
        return [f"git: {exc.message}"]
    return [f"{e.commit} {e.message}" for e in entries] or ["(no commits touch this claim file)"]


def verify_claim(brain: Brain, snapshot: BrainSnapshot, claim: Claim) -> tuple[DriftReport | None, str]:
    """Scope drift of the claim (`bsi verify`), via `Brain.audit.verify`."""
    del snapshot  # the report reads the brain as it is now, like `bsi verify`
    return _answer("verify", lambda: brain.audit.verify(claim.sess_id))


def sync_status(brain: Brain) -> tuple[SyncStatus | None, str]:
    """Where the brain stands against its remote (`brain.remote.status()`): local git only, no network."""
    return _answer("sync", lambda: brain.remote.status())


def fetch_remote(brain: Brain, *, integrate: bool = True) -> bool:
    """The background fetch of `sync: auto`: `Brain.pull()` (fetch, then bring the work tree to the remote tip
    under the brain lock), or only `git fetch` when not `integrate` (read-only cockpit). False when there is
    nothing to do (no remote, no branch); `BsiError` when the remote is unreachable, a rebase stopped, …"""
    from brain_tui.core.sync import gitops

    if not brain.remote.has_remote() or not gitops.current_branch(brain.root):
        return False
    if integrate:
        brain.pull()
    else:
        brain.remote.fetch()
    return True


def lint_findings(brain: Brain) -> tuple[list[Finding] | None, str]:
    """`bsi lint` over the whole brain (`Brain.lint`): path, line, field, message of each finding, in file order."""
    return _answer("lint", lambda: list(brain.lint()), core_words=False)
