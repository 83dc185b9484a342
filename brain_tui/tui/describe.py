"""Text blocks about one claim, shared by the gate screen and the dialogs: the gate, result, children, effect."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from textual.content import Content

from brain_tui.core.clock import format_timestamp, humanize_delta
from brain_tui.core.records.model import TIER_NAMES, BrainSnapshot, Claim, Signal, tier_of
from brain_tui.core.records.statuses import SignalState, Status
from brain_tui.core.rules import tiers
from brain_tui.core.rules.attention import (
    WARN_BEFORE,
    claim_of,
    describe_time_left,
    gate_message,
    gate_raised_at,
    time_left,
)
from brain_tui.core.rules.effective import past_age_cap, renew_can_extend
from brain_tui.core.rules.preview import Preview, preview
from brain_tui.core.sessions.live import LiveSession

from .live import live_text
from .present import ago, format_clock, level_name, result_of, short_id, short_party, status_icon, ttl_left
from .safe import safe_text, styled
from .styles import ERROR, MUTED, OK, STRONG, WARN

MAX_LISTED = 12


def _heading(out: Content, title: str) -> Content:
    """`out` followed by the heading `title` (a blank line before it when `out` is not empty)."""
    return (out + "\n\n" if out.plain else out) + Content.styled(title, STRONG)


def claim_summary(claim: Claim, snapshot: BrainSnapshot) -> Content:
    """ID, status, tier, level, instance, scope, TTL and story."""
    out = status_icon(claim.status) + " " + safe_text(claim.sess_id, 80, style=STRONG) + "  "
    out += safe_text(claim.status, 20)
    tier = tier_of(claim)
    out += Content.styled(f" · tier {tier} {TIER_NAMES[tier]}", MUTED) + "\n"
    kind = claim.type if claim.type == claim.level else f"{claim.type} · {level_name(claim)}"
    out += safe_text(f"{kind} · {claim.instance or '?'}", 120, style=MUTED)
    if claim.is_terminal:  # its TTL no longer counts: when it ended
        ended = claim.closed_at
        if ended is not None and ended.tzinfo is None:
            ended = ended.replace(tzinfo=snapshot.tz)
        out += Content.styled(f" · ended {ago(ended, snapshot.now)}" if ended is not None else " · ended",
                              MUTED)
    else:
        out += " · TTL "
        out += ttl_left(claim, snapshot.now)
    out += "\nscope "
    out += safe_text(claim.scope_text or "—", 160)
    if claim.parent:
        out += "\nparent "
        out += safe_text(claim.parent, 80)
    out += "\nstory "
    out += safe_text(claim.story or "—", 300)
    return out


def result_text(claim: Claim) -> Content:
    """The claim's `result`: status, tests, files, notes."""
    result: Mapping[str, Any] = result_of(claim)
    if not result:
        return styled("no result recorded", MUTED)
    out = Content("status ") + safe_text(result.get("status", "?"), 20, style=STRONG)
    tests = result.get("tests")
    if isinstance(tests, Mapping):
        out += "  tests "
        out = out.append(safe_text(f"{tests.get('passed', '?')}/{tests.get('total', '?')} passed, "
                                   f"{tests.get('failed', '?')} failed", 60))
    files = result.get("files_modified")
    if isinstance(files, list) and files:
        out += "\nfiles "
        for index, name in enumerate(files[:MAX_LISTED]):
            if index:
                out += ", "
            out += safe_text(name, 100)
        if len(files) > MAX_LISTED:
            out += f" … +{len(files) - MAX_LISTED}"
    if result.get("notes"):
        out += "\nnotes "
        out += safe_text(result["notes"], 300)
    if result.get("commit"):
        out += "\ncommit "
        out += safe_text(result["commit"], 40)
    return out


def children_text(claim: Claim, snapshot: BrainSnapshot) -> Content:
    """The claim's satellites (direct children) with their status."""
    children = snapshot.children(claim.sess_id)
    if not children:
        return styled("no satellites", MUTED)
    out = Content()
    for index, child in enumerate(children[:MAX_LISTED]):
        if index:
            out += "\n"
        out += status_icon(child.status) + " " + safe_text(short_id(child.sess_id, snapshot.now, snapshot.tz), 40) + " "
        out += safe_text(child.status, 20, style=MUTED) + " " + safe_text(child.story, 80, style=MUTED)
    if len(children) > MAX_LISTED:
        out += f"\n… {len(children) - MAX_LISTED} more"
    return out


def approve_effect(claim: Claim, snapshot: BrainSnapshot, dry_runs: Mapping[str, Preview] | None = None) -> Content:
    """What approving `claim` would do and unblock, as the core decides it (dry run, nothing written); the
    `dry_runs` already made ("approve", "reject") are not computed again."""
    known = dry_runs or {}
    outcome = known.get("approve") or preview(snapshot, "approve", claim.sess_id)
    if not outcome.allowed:
        return safe_text(f"cannot approve now: {outcome.refusal}", 400, style=ERROR)
    out = styled("approve → ", STRONG)
    out += safe_text(outcome.status, 20, style=ERROR if outcome.status == Status.STALE else OK)
    who = short_id(claim.sess_id, snapshot.now, snapshot.tz)
    if outcome.status == Status.OPEN:
        out += safe_text(f": {who} resumes its work", 120)
        if outcome.expires_at:
            until = datetime.fromisoformat(outcome.expires_at)
            out += safe_text(f"; its gate had expired: the approval renews it for "
                             f"{humanize_delta(until - snapshot.now)}, until {format_clock(until, snapshot.tz)[11:]}",
                             160, style=WARN)
        waiting = tiers.unfinished_below(snapshot, claim.sess_id)
        if waiting:
            out += safe_text(f"; {len(waiting)} satellite(s) below it carry on", 80)
    elif outcome.status == Status.STALE:
        out += safe_text(f": {who} passed its 8 h limit, so the approval cannot renew it; it stays stale and "
                         "cannot write: its owner may close it late, or release it (R)", 240)
    else:
        out += ": the result is accepted"
        if claim.parent:
            parent = snapshot.claim(claim.parent)
            left = tiers.unfinished_below(snapshot, claim.parent, besides=claim.sess_id) if parent else []
            out += "; parent "
            out += safe_text(short_id(claim.parent, snapshot.now, snapshot.tz), 40)
            if left:
                out += safe_text(f" still waits on {len(left)} satellite(s)", 60)
            else:
                out += " can then close (no satellite left open)"
    if outcome.signals:
        out += safe_text(f"; {outcome.signals} signal(s) sent", 40, style=MUTED)
    reject = known.get("reject") or preview(snapshot, "reject", claim.sess_id)
    if reject.allowed:
        out += Content.styled("\nreject → ", STRONG) + safe_text(reject.status or "failed", 20, style=ERROR)
        out += safe_text(f" (reason required); {reject.signals} signal(s) sent", 60, style=MUTED)
    return out


def expiry_hint(claim: Claim | None, now: datetime) -> str:
    """What the human can do about a gate about to expire: renew (r) only while renewing extends it."""
    if claim is None or renew_can_extend(claim, now):
        return " — renew it (r) or decide now"
    if past_age_cap(claim, now):
        return (" — at its 8 h limit: no renewal can extend it. Decide it (approve or reject); once stale, only "
                "its owner's late close or a release (R) ends it")
    return " — renewing no longer helps: decide it now (approving an expired gate renews it)"


def gate_details(claim: Claim, snapshot: BrainSnapshot, dry_runs: Mapping[str, Preview] | None = None) -> Content:
    """Everything a human needs to decide a gate: message, effect, result, files, children, then the claim
    (`dry_runs`: as `approve_effect`)."""
    out = status_icon(claim.status) + " " + safe_text(claim.sess_id, 80, style=STRONG) + "  "
    out += safe_text(claim.story or "—", 200)
    raised = gate_raised_at(claim, snapshot.tz)
    out += "\n"
    out += Content.styled("gate ", STRONG) + safe_text(gate_message(claim) or "—", 400, style=WARN)
    origin = claim.gate_origin or "request"
    out = out.append(safe_text(f"\nraised {ago(raised, snapshot.now)}"
                               + (f" ({format_timestamp(raised, snapshot.tz)})" if raised else "")
                               + f" · {'exit trigger at close' if origin == 'close' else 'gate request'}",
                               200, style=MUTED, multiline=True))
    left = time_left(claim, snapshot.now)
    if left is not None:
        out += "\n"
        hint = expiry_hint(claim, snapshot.now) if left < WARN_BEFORE else ""
        out = out.append(safe_text(describe_time_left(left) + hint, 200,
                                   style=ERROR if left < WARN_BEFORE else MUTED))
    out += "\n"
    out += approve_effect(claim, snapshot, dry_runs)
    out = _heading(out, "Result") + "\n" + result_text(claim)
    out = _heading(out, "Satellites") + "\n" + children_text(claim, snapshot)
    out = _heading(out, "Claim") + "\n" + claim_summary(claim, snapshot)
    return out


def signal_details(sig: Signal, snapshot: BrainSnapshot, brain_name: str, *, key_hint: bool = True) -> Content:
    """A pending BLOCKED_ON / HUMAN_GATE signal: who is blocked, on what, since when (parties short, by
    `brain_name`); `key_hint`: end with the key that acknowledges a pending signal (not in the acknowledge
    dialog itself, whose own hint says it)."""
    out = Content()
    out += safe_text(sig.type, 30, style=WARN) + " " + safe_text(sig.sig_id, 80, style=STRONG) + "\nfrom "
    out += safe_text(short_party(sig.sender, snapshot, brain_name), 80) + " → "
    out += safe_text(short_party(sig.to, snapshot, brain_name), 80)
    out = out.append(safe_text(f" · {ago(sig.created_at, snapshot.now)} · {sig.state}", 60,
                               style=MUTED))
    if sig.scope:
        out += "\nscope "
        out += safe_text(sig.scope, 160)
    out += "\npayload "
    out += safe_text(sig.payload or "—", 600)
    # The sender's claim: the one the keys act on. Named for what it is, whatever the type (a CHECKPOINT's sender
    # has often ended; the summary says its status).
    sender = claim_of(snapshot, sig.sender)
    if sender is not None:
        out = _heading(out, "Sender's claim") + "\n"
        out += claim_summary(sender, snapshot)
    if not key_hint:
        return out
    out += "\n\n"
    if sig.state == SignalState.PENDING:
        out += Content.styled("K acknowledges it (pending → delivered), after a confirmation.", MUTED)
    return out


def claim_line(claim: Claim, now: datetime, session: LiveSession | None, *, wide: bool) -> Content:
    """The selection line for a claim: ID, status, time left, tier (`wide`), instance, its agent's state, story."""
    out = status_icon(claim.status) + " " + safe_text(claim.sess_id, 60, style=STRONG)
    tier = tier_of(claim)
    left = describe_time_left(time_left(claim, now))
    details = f" · {claim.status}" + (f" · {left}" if left and not claim.is_terminal else "")
    details += f" · tier {tier} {TIER_NAMES[tier]}" if wide else ""
    out += safe_text(f"{details} · {claim.instance or '?'} · ", 120, style=MUTED)
    if session is not None:
        out += live_text(session, now) + Content.styled(" · ", MUTED)
    return out + safe_text(claim.story or "—", 300)


def signal_line(sig: Signal) -> Content:
    """The selection line for a signal: ID, type, state, what `o` does on a pending handoff, payload."""
    out = safe_text(sig.sig_id, 60, style=STRONG) + safe_text(f" · {sig.type} · {sig.state} · ", 60, style=MUTED)
    if sig.type == "HANDOFF" and sig.state == SignalState.PENDING:
        out += styled("o opens the claim it asks for · ", WARN)
    return out + safe_text(sig.payload or "—", 300)
