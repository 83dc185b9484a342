"""Text blocks about one claim, shared by the gate screen and the dialogs: the gate, result, children, effect."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from brain_tui.core import tiers
from brain_tui.core.attention import WARN_BEFORE, describe_time_left, gate_message, gate_raised_at, time_left
from brain_tui.core.clock import format_timestamp
from brain_tui.core.model import BrainSnapshot, Claim, Signal
from brain_tui.core.preview import preview

from .present import (
    Palette,
    age,
    level_name,
    result_of,
    short_id,
    short_party,
    status_icon,
    ttl_left,
)
from .safe import safe_text, styled

MAX_LISTED = 12


def _heading(out: Text, title: str, palette: Palette) -> None:
    if out.plain:
        out.append("\n\n")
    out.append(title, style=palette.strong)


def claim_summary(claim: Claim, snapshot: BrainSnapshot, palette: Palette) -> Text:
    """ID, status, tier, level, instance, scope, TTL and story."""
    out = status_icon(claim.status, palette)
    out.append(" ")
    out.append_text(safe_text(claim.sess_id, 80, style=palette.strong))
    out.append("  ")
    out.append_text(safe_text(claim.status, 20))
    tier = tiers.tier_of(claim)
    out.append(f" · tier {tier} {tiers.TIER_NAMES[tier]}", style=palette.muted)
    out.append("\n")
    kind = claim.type if claim.type == claim.level else f"{claim.type} · {level_name(claim)}"
    out.append_text(safe_text(f"{kind} · {claim.instance or '?'}", 120, style=palette.muted))
    out.append(" · TTL ")
    out.append_text(ttl_left(claim, snapshot.now, palette))
    out.append("\nscope ")
    out.append_text(safe_text(claim.scope_text or "—", 160))
    if claim.parent:
        out.append("\nparent ")
        out.append_text(safe_text(claim.parent, 80))
    out.append("\nstory ")
    out.append_text(safe_text(claim.story or "—", 300))
    return out


def result_text(claim: Claim, palette: Palette) -> Text:
    """The claim's `result`: status, tests, files, notes."""
    result: Mapping[str, Any] = result_of(claim)
    if not result:
        return styled("no result recorded", palette.muted)
    out = Text("status ", end="")
    out.append_text(safe_text(result.get("status", "?"), 20, style=palette.strong))
    tests = result.get("tests")
    if isinstance(tests, Mapping):
        out.append("  tests ")
        out.append_text(safe_text(f"{tests.get('passed', '?')}/{tests.get('total', '?')} passed, "
                                  f"{tests.get('failed', '?')} failed", 60))
    files = result.get("files_modified")
    if isinstance(files, list) and files:
        out.append("\nfiles ")
        for index, name in enumerate(files[:MAX_LISTED]):
            if index:
                out.append(", ")
            out.append_text(safe_text(name, 100))
        if len(files) > MAX_LISTED:
            out.append(f" … +{len(files) - MAX_LISTED}")
    if result.get("notes"):
        out.append("\nnotes ")
        out.append_text(safe_text(result["notes"], 300))
    if result.get("commit"):
        out.append("\ncommit ")
        out.append_text(safe_text(result["commit"], 40))
    return out


def children_text(claim: Claim, snapshot: BrainSnapshot, palette: Palette) -> Text:
    """The claim's satellites (direct children) with their status."""
    children = snapshot.children(claim.sess_id)
    if not children:
        return styled("no satellites", palette.muted)
    out = Text(end="")
    for index, child in enumerate(children[:MAX_LISTED]):
        if index:
            out.append("\n")
        out.append_text(status_icon(child.status, palette))
        out.append(" ")
        out.append_text(safe_text(short_id(child.sess_id, snapshot.now, snapshot.tz), 40))
        out.append(" ")
        out.append_text(safe_text(child.status, 20, style=palette.muted))
        out.append(" ")
        out.append_text(safe_text(child.story, 80, style=palette.muted))
    if len(children) > MAX_LISTED:
        out.append(f"\n… {len(children) - MAX_LISTED} more")
    return out


def approve_effect(claim: Claim, snapshot: BrainSnapshot, palette: Palette) -> Text:
    """What approving would do and unblock, as the core decides it (dry run, nothing written)."""
    outcome = preview(snapshot, "approve", claim.sess_id)
    if not outcome.allowed:
        return safe_text(f"cannot approve now: {outcome.refusal}", 400, style=palette.error)
    out = styled("approve → ", palette.strong)
    out.append_text(safe_text(outcome.status, 20, style=palette.ok))
    if outcome.status == "open":
        out.append_text(safe_text(f": {short_id(claim.sess_id, snapshot.now, snapshot.tz)} resumes its work", 120))
        waiting = tiers.unfinished_below(snapshot, claim.sess_id)
        if waiting:
            out.append_text(safe_text(f"; {len(waiting)} satellite(s) below it carry on", 80))
    else:
        out.append(": the result is accepted")
        if claim.parent:
            parent = snapshot.claim(claim.parent)
            left = tiers.unfinished_below(snapshot, claim.parent, besides=claim.sess_id) if parent else []
            out.append("; parent ")
            out.append_text(safe_text(short_id(claim.parent, snapshot.now, snapshot.tz), 40))
            if left:
                out.append_text(safe_text(f" still waits on {len(left)} satellite(s)", 60))
            else:
                out.append(" can then close (no satellite left open)")
    if outcome.signals:
        out.append_text(safe_text(f"; {outcome.signals} signal(s) sent", 40, style=palette.muted))
    reject = preview(snapshot, "reject", claim.sess_id)
    if reject.allowed:
        out.append("\nreject → ", style=palette.strong)
        out.append_text(safe_text(reject.status or "failed", 20, style=palette.error))
        out.append_text(safe_text(f" (reason required); {reject.signals} signal(s) sent", 60, style=palette.muted))
    return out


def gate_details(claim: Claim, snapshot: BrainSnapshot, palette: Palette) -> Text:
    """Everything a human needs to decide a gate: message, effect, result, files, children, then the claim."""
    out = status_icon(claim.status, palette)
    out.append(" ")
    out.append_text(safe_text(claim.sess_id, 80, style=palette.strong))
    out.append("  ")
    out.append_text(safe_text(claim.story or "—", 200))
    raised = gate_raised_at(claim, snapshot.tz)
    out.append("\n")
    out.append("gate ", style=palette.strong)
    out.append_text(safe_text(gate_message(claim) or "—", 400, style=palette.warn))
    origin = claim.gate_origin or "request"
    out.append_text(safe_text(f"\nraised {age(raised, snapshot.now)} ago"
                              + (f" ({format_timestamp(raised, snapshot.tz)})" if raised else "")
                              + f" · {'exit trigger at close' if origin == 'close' else 'gate request'}",
                              200, style=palette.muted, multiline=True))
    left = time_left(claim, snapshot.now)
    if left is not None:
        out.append("\n")
        out.append_text(safe_text(describe_time_left(left) + (" — renew it (r) or decide now" if left < WARN_BEFORE
                                                              else ""), 120,
                                  style=palette.error if left < WARN_BEFORE else palette.muted))
    out.append("\n")
    out.append_text(approve_effect(claim, snapshot, palette))
    _heading(out, "Result", palette)
    out.append("\n")
    out.append_text(result_text(claim, palette))
    _heading(out, "Satellites", palette)
    out.append("\n")
    out.append_text(children_text(claim, snapshot, palette))
    _heading(out, "Claim", palette)
    out.append("\n")
    out.append_text(claim_summary(claim, snapshot, palette))
    return out


def signal_details(sig: Signal, snapshot: BrainSnapshot, palette: Palette, brain_name: str) -> Text:
    """A pending BLOCKED_ON / HUMAN_GATE signal: who is blocked, on what, since when."""
    out = Text(end="")
    out.append_text(safe_text(sig.type, 30, style=palette.warn))
    out.append(" ")
    out.append_text(safe_text(sig.sig_id, 80, style=palette.strong))
    out.append("\nfrom ")
    out.append_text(safe_text(short_party(sig.sender, snapshot, brain_name), 80))
    out.append(" → ")
    out.append_text(safe_text(short_party(sig.to, snapshot, brain_name), 80))
    out.append_text(safe_text(f" · {age(sig.created_at, snapshot.now)} ago · {sig.state}", 60,
                              style=palette.muted))
    if sig.scope:
        out.append("\nscope ")
        out.append_text(safe_text(sig.scope, 160))
    out.append("\npayload ")
    out.append_text(safe_text(sig.payload or "—", 600))
    # The sender is the session that waits (BLOCKED_ON, HUMAN_GATE): the one the keys act on.
    blocked = snapshot.claim(sig.sender.partition("@")[0]) if sig.sender.startswith("sess-") else None
    if blocked is not None:
        _heading(out, "Waiting session" if sig.type != "BLOCKED_ON" else "Blocked session", palette)
        out.append("\n")
        out.append_text(claim_summary(blocked, snapshot, palette))
    out.append("\n\n")
    if sig.state == "pending":
        out.append("K acknowledges it (pending → delivered), after a confirmation.", style=palette.muted)
    return out
