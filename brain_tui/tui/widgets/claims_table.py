"""Active and stale claims tables."""

from __future__ import annotations

from typing import Any

from brain_tui.core.records.in_force import STATUS_IN_HEAD
from brain_tui.core.records.model import BrainSnapshot, Claim
from brain_tui.core.records.statuses import Status
from brain_tui.core.rules import watchdog

from ..live import LiveMap, live_glyph, live_text, stale_evidence
from ..present import ago, claim_matches, level_name, short_id, short_instance, stale_since, status_icon, ttl_left
from ..safe import safe_text
from ..styles import ERROR, MUTED, WARN
from .table import Col, KeyedTable, Row, timed


class GroupedClaimsTable(KeyedTable):
    """A claims table whose rows may be grouped by their agent's state (`G`, `grouping.grouped_rows`)."""

    def _sorted(self, rows: list[Row]) -> list[Row]:
        """A sort orders the rows inside each agent-state group (`G`), the headings stay."""
        from ..grouping import sort_within_groups

        return sort_within_groups(rows, super()._sorted)


class ActiveClaimsTable(GroupedClaimsTable):
    """Open, waiting and paused claims: ID, instance, scope, level, status, TTL left, agent and story.

    With bound agents, a one-cell column shows each claim's agent state (● ? ◌ ✕), and from 140
    columns the Agent column its last tool, last commit and context runway.
    """

    COLUMNS = (
        Col("status", "", 1),
        Col("live", "", 1, optional=True),
        Col("id", "ID", 17, wide_width=20),
        Col("instance", "Instance", 9, min_table_width=96, wide_width=12),
        Col("scope", "Scope", None, weight=2, min_width=14, keep_end=True),
        Col("level", "Level", 6, min_table_width=96),
        Col("ttl", "TTL", 7),
        Col("agent", "Agent", 54, min_table_width=140, optional=True),
        Col("story", "Story", None, weight=3, min_width=10),
    )


class StaleClaimsTable(GroupedClaimsTable):
    """Stale claims: expired, still blocking, waiting for a human to release them."""

    COLUMNS = (
        Col("status", "", 1),
        Col("id", "ID", 17, wide_width=20),
        Col("instance", "Instance", 9, min_table_width=96, wide_width=12),
        Col("scope", "Scope", None, weight=2, min_width=14, keep_end=True),
        Col("expired", "Expired", 10),
        Col("agent", "Session", 22, min_table_width=96, wide_width=24),
        Col("action", "Action", None, weight=2, min_width=10),
    )


def active_rows(snapshot: BrainSnapshot, brain_name: str, needle: str = "",
                live: LiveMap | None = None, grouped: bool = False) -> list[Row]:
    """Rows of the active claims table (opening order): every unfinished claim the watchdog did not mark stale.

    A status the product does not know counts as unfinished, as the core counts it (it blocks its scope,
    flagged ``status-unknown``): such a claim is listed here with its status written out.

    Args:
        snapshot: the brain; its `now` is the time TTLs are counted from.
        brain_name: this brain's name (to shorten instances).
        needle: the filter text.
        live: the live sessions (`Brain.live_sessions()`), for the Agent column.
        grouped: group the rows by their agent's state under heading rows (`grouping.grouped_rows`).
    """
    rows: list[Row] = []
    live = live or {}
    for claim in snapshot.claims:
        if claim.is_terminal or claim.status == Status.STALE or not claim_matches(claim, needle):
            continue
        cells = _active_cells(claim, snapshot, brain_name)
        if live:
            cells["live"] = live_glyph(live.get(claim.sess_id))
            cells["agent"] = live_text(live.get(claim.sess_id), snapshot.now)
        rows.append((claim.sess_id, cells))
    if grouped:
        from ..grouping import grouped_rows

        return grouped_rows(rows, live)
    return rows


def _active_cells(claim: Claim, snapshot: BrainSnapshot, brain_name: str) -> dict[str, Any]:
    now = snapshot.now
    ttl = ttl_left(claim, now, column=True)
    if watchdog.expired(claim, snapshot):
        ttl = safe_text(ttl.plain + "!", 8, style=ERROR)
    story = safe_text(claim.story or "—", 200)
    if "clock-skew" in claim.flags:
        story = safe_text("[clock-skew] ", 20, style=WARN) + story
    if "status-unknown" in claim.flags:  # kept as written by the core, and blocking: say what it is
        story = safe_text(f"[status {claim.status}] ", 48, style=WARN) + story
    if STATUS_IN_HEAD in claim.flags:  # the file says a lift HEAD does not hold: the status shown is HEAD's
        story = safe_text("[lift not committed] ", 24, style=WARN) + story
    return {
        "status": status_icon(claim.status),
        "id": safe_text(short_id(claim.sess_id, now, snapshot.tz), 40),
        "instance": safe_text(short_instance(claim.instance, brain_name) or "—", 40, style=MUTED),
        "scope": safe_text(claim.scope_text or "—", 120),
        "level": safe_text(level_name(claim), 10, style=MUTED),
        "ttl": timed(ttl, claim.expires_at),
        "story": story,
    }


def stale_rows(snapshot: BrainSnapshot, brain_name: str, needle: str = "",
               readonly: bool = False, live: LiveMap | None = None, grouped: bool = False) -> list[Row]:
    """Rows of the stale claims table (the action hint is left out when read-only).

    Beside each claim, the evidence about its session (`live`): a release is decided knowing
    whether the agent still works. Then one row per file that does not read (`corrupt.corrupt_rows`).
    `grouped`: under agent-state headings, as the active claims.
    """
    rows: list[Row] = []
    live = live or {}
    for claim in snapshot.claims:
        if claim.status != Status.STALE or not claim_matches(claim, needle):
            continue
        since = stale_since(claim, snapshot.tz)
        reason = claim.stale_reason or "expired"
        action = safe_text(reason if readonly else f"R release · {reason}", 120, style=WARN)
        if "clock-skew" in claim.flags:  # marked by a clock ahead, still within its deadline here: say so first
            action = safe_text("[clock-skew] ", 20, style=WARN) + action
        rows.append((claim.sess_id, {
            "status": status_icon("stale"),
            "id": safe_text(short_id(claim.sess_id, snapshot.now, snapshot.tz), 40),
            "instance": safe_text(short_instance(claim.instance, brain_name) or "—", 40, style=MUTED),
            "scope": safe_text(claim.scope_text or "—", 120),
            "expired": timed(safe_text(ago(since, snapshot.now, column=True), 16, style=ERROR), since),
            "action": action,
            # Every stale row says what is known of its session, "no bound agent" included.
            "agent": stale_evidence(live.get(claim.sess_id), snapshot.now),
        }))
    from ..corrupt import corrupt_rows

    rows.extend(corrupt_rows(snapshot, needle))  # files that do not read: they block, a human repairs them
    if grouped:  # `G` groups the stale claims too: is its agent still working, or gone?
        from ..grouping import grouped_rows

        return grouped_rows(rows, live)
    return rows
