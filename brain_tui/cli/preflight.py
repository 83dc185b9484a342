"""`bsi preflight check|fail|reset|status` and `bsi lock acquire|release|check|list|cleanup` (SPEC 9, 10).

Exit codes: `preflight check` exits 0 (go) or the SPEC 10 code of the first
failing check (4 claim, 1 scope, 5 zone, 2 lock, 3 circuit, 6 branch);
`lock acquire` exits 1 when another session holds the lock; `lock release`
exits 2 for a non-holder; `lock check` exits 1 when another session could not
acquire it now (an unexpired lock exists), else 0. Bad paths, IDs and TTLs exit 65.

`--json` shapes (one document on stdout; refusals use the common error shape
`{"error", "exit", …}` with the extra keys named below):

* lock object: `{"file", "holder", "generation", "claimed_at", "expires_at",
  "ttl_min", "expired", "legacy", "path", "holder_ended"}` (`holder_ended`: the status of its holder's
  ended claim, whose lock holds nothing, else null)
* `preflight check` → `{"sess_id", "file", "code": 0, "check": "go"}`;
  refused → `{"error", "exit", "sess_id", "file", "code", "check"}` where
  `check` is `claim|scope|zone|lock|circuit|branch`, or `protocol` (exit 1: a
  protocol file is changed through `bsi` only) (plus `status`, `blocked_by`,
  `holder`, `holders` (the other claims holding the file), `expires_at`,
  `fails`, `max`, `branch`, `theme_branch` where relevant, and `sections`: the
  sections a claim holding the file by `##` sections only may write). It is the
  decision `bsi hook pre-tool-use` makes for a path (`Brain.decide_write`); FILE
  may name a `##` section (`plan.md#Alpha`, SPEC 5.1), and a whole file held by
  sections only is outside the scope (1): the check names no text
  (`core/rules/preflight_answer.py`).
* `preflight fail|reset|status` → `{"sess_id", "fails", "max", "tripped",
  "last_fail_at", "signal"}` (`signal`: the CIRCUIT_BREAK ID written by this
  `fail`, else null)
* `lock acquire` → `{"file", "holder", "generation", "claimed_at",
  "expires_at", "ttl_min", "path", "action", "takeover", "previous_holder",
  "previous_expires_at", "replaced_legacy"}` with `action` one of
  `acquired|extended|taken_over|reacquired`, and `previous_status` (the
  holder's terminal status) on the takeover of an ended claim's lock, and `asked_ttl_min` on a re-entry
  whose TTL would end the lock sooner (its later expiry and the `ttl_min` that set it are kept);
  refused → `{"error", "exit": 1, "file", "holder", "expires_at", "generation"}`
* `lock release` → `{"file", "released": bool, "removed": [paths]}`
* `lock check` → `{"file", "locked": bool, "lock": lock object | null}`
  (`lock` is the newest lock file of the path, expired or not)
* `lock list` → `{"locks": [lock objects], "corrupt": [{"path", "line", "reason"}]}`
* `lock cleanup` → `{"removed": [lock objects]}` (expired ones, and those of an ended claim: `expired` false)
"""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command, one_line, table

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.rules import circuit
    from brain_tui.core.rules.locks import LockInfo

#: The lock TTL when none is given, as `brain_tui.core.rules.locks.DEFAULT_LOCK_TTL_MIN` says (a test keeps the two
#: equal): written here for the help text, so that building the parser loads no core module.
DEFAULT_LOCK_TTL_MIN = 60


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the `preflight` and `lock` commands."""
    pre = sub.add_parser("preflight", help="checks before a write; the circuit breaker", parents=[parent])
    psub = pre.add_subparsers(dest="preflight_command", metavar="ACTION")
    add_command(psub, parent, "check", "may this session write FILE (or FILE#Section) now? (exit 0 or 1-6)", cmd_check,
                "sess_id", "file")
    add_command(psub, parent, "fail", "record one failure (circuit breaker)", cmd_fail, "sess_id")
    add_command(psub, parent, "reset", "clear the circuit breaker", cmd_reset, "sess_id")
    add_command(psub, parent, "status", "the circuit breaker of a session", cmd_status, "sess_id")

    lock = sub.add_parser("lock", help="file mutexes", parents=[parent])
    lsub = lock.add_subparsers(dest="lock_command", metavar="ACTION")
    p = add_command(lsub, parent, "acquire", "lock FILE for a session (re-entrant)", cmd_acquire, "file", "sess_id")
    p.add_argument("ttl_min", nargs="?", default=None, metavar="TTL_MIN",
                   help=f"minutes (default {DEFAULT_LOCK_TTL_MIN})")
    add_command(lsub, parent, "release", "release FILE (holder only)", cmd_release, "file", "sess_id")
    add_command(lsub, parent, "check", "who holds FILE (exit 1 when locked)", cmd_lock_check, "file")
    add_command(lsub, parent, "list", "every lock", cmd_lock_list)
    add_command(lsub, parent, "cleanup", "delete locks that hold nothing: expired, or of an ended claim", cmd_cleanup)


# -- preflight ----------------------------------------------------------------------------------
def cmd_check(ctx: Context) -> int:
    """`bsi preflight check ID FILE`: 0 or a refusal (raised, mapped to its exit code)."""
    a = ctx.args
    result = ctx.brain.preflight(a.sess_id, a.file)
    ctx.emit(result.as_dict(), f"go: {result.sess_id} may write {result.file}")
    return 0


def _circuit_text(state: circuit.CircuitState) -> str:
    text = f"{state.sess_id}: {state.fails}/{state.max_fails} consecutive failures"
    if state.tripped:
        text += " — circuit breaker TRIPPED"
    return text


def cmd_fail(ctx: Context) -> int:
    """`bsi preflight fail ID`: one more failure; trips the breaker at the maximum."""
    state = ctx.brain.circuit.fail(ctx.args.sess_id)
    if state.signal:
        ctx.say(f"circuit breaker tripped: CIRCUIT_BREAK signal {state.signal} sent")
    ctx.emit(state.as_dict(), _circuit_text(state))
    return 0


def cmd_reset(ctx: Context) -> int:
    """`bsi preflight reset ID`: clear the breaker."""
    state = ctx.brain.circuit.reset(ctx.args.sess_id)
    ctx.emit(state.as_dict(), _circuit_text(state))
    return 0


def cmd_status(ctx: Context) -> int:
    """`bsi preflight status ID`."""
    state = ctx.brain.circuit.status(ctx.args.sess_id)
    ctx.emit(state.as_dict(), _circuit_text(state))
    return 0


# -- locks --------------------------------------------------------------------------------------
def cmd_acquire(ctx: Context) -> int:
    """`bsi lock acquire FILE ID [TTL_MIN]`: the takeover of an expired lock, or of an ended claim's, is printed."""
    a = ctx.args
    out = ctx.brain.locks.acquire(a.file, a.sess_id, a.ttl_min)
    how = out.action if out.asked_ttl_min is None else \
        f"kept: the {out.asked_ttl_min} min asked would end it sooner, and a re-entry never shortens a lock"
    text = f"{out.file} locked by {out.holder} until {out.expires_at} (generation {out.generation}, {how})"
    if out.takeover:
        was = f"whose claim is {out.previous_status}" if out.previous_status else \
            f"expired at {out.previous_expires_at}"
        ctx.say(f"takeover: {out.file} was held by {out.previous_holder}, {was}; taken over by {out.holder}, "
                f"generation {out.generation}")
    ctx.emit(out.as_dict(), text)
    return 0


def cmd_release(ctx: Context) -> int:
    """`bsi lock release FILE ID`."""
    a = ctx.args
    out = ctx.brain.locks.release(a.file, a.sess_id)
    if not out.released:
        ctx.say(f"{out.file} was not locked: nothing to release")
    ctx.emit(out.as_dict(), f"{out.file} released" if out.released else f"{out.file} not locked")
    return 0


def cmd_lock_check(ctx: Context) -> int:
    """`bsi lock check FILE`: exit 1 when an unexpired lock exists (or a lock file of FILE does not read), else 0."""
    out = ctx.brain.locks.check(ctx.args.file)
    shown = out.lock
    if out.corrupt is not None:  # no live lock, and a lock file of the path that does not read
        text = (f"{out.file}: may be locked — its lock file {out.corrupt.path} does not read "
                f"(line {out.corrupt.line}: {out.corrupt.reason}); fix or remove it by hand")
    elif shown is None:
        text = f"{out.file}: free"
    elif shown.holder_ended and not out.locked:  # its holder's claim has ended: the lock holds nothing
        text = (f"{out.file}: free — the lock of {one_line(shown.holder, 80)} (generation {shown.generation}) "
                f"holds nothing: its claim is {shown.holder_ended}")
    else:
        state = "expired" if shown.expired else "locked"
        text = (f"{out.file}: {state} — holder {one_line(shown.holder, 80)}, generation {shown.generation}, "
                f"expires {shown.expires_at}")
    ctx.emit(out.as_dict(), text)
    return out.exit_code


def cmd_lock_list(ctx: Context) -> int:
    """`bsi lock list`."""
    listing = ctx.brain.locks.list()
    if ctx.json:
        ctx.emit(listing.as_dict())
        return 0
    rows = [[one_line(d.file, 50), one_line(d.holder, 40), str(d.generation), d.expires_at or "?",
             _lock_state(d), "legacy" if d.legacy else ""] for d in listing.locks]
    ctx.emit(None, table(rows, ["FILE", "HOLDER", "GEN", "EXPIRES", "STATE", "FORMAT"]) or "no locks")
    for bad in listing.corrupt:
        ctx.say(f"corrupt lock file {bad.path} line {bad.line}: {bad.reason}")
    return 0


def _lock_state(lock: LockInfo) -> str:
    """A lock's STATE cell: expired, free (the ended claim's status) or held."""
    if lock.expired:
        return "expired"
    return f"free ({lock.holder_ended})" if lock.holder_ended else "held"


def cmd_cleanup(ctx: Context) -> int:
    """`bsi lock cleanup`: delete the locks that hold nothing (expired, or whose holder's claim has ended)."""
    removed = ctx.brain.locks.cleanup()
    expired = sum(lock.expired for lock in removed)
    ended = len(removed) - expired
    text = f"{len(removed)} locks removed ({expired} expired, {ended} of an ended claim)" if removed else \
        "no locks removed (none expired, none of an ended claim)"
    ctx.emit({"removed": [lock.as_dict() for lock in removed]}, text)
    return 0
