"""How brain data looks in the cockpit: status icons, short IDs, TTLs, ages.

Presentation only: every rule (tiers, expiry, cascades) comes from the core. Everything returned for display is a
`Content` built through `safe_text`, styled by the roles of `styles` (theme ``$variables``, resolved when drawn).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from typing import Any

from textual.content import Content

from brain_tui.core.clock import humanize_countdown, humanize_delta, try_parse_timestamp
from brain_tui.core.ids import party_text
from brain_tui.core.records.model import BrainSnapshot, Claim, Signal

from .safe import styled
from .styles import ERROR, MUTED, WARN, role

#: Status → (icon, role of `styles.ROLES`). Icons are one cell wide in every common terminal font.
STATUS_ICONS: dict[str, tuple[str, str]] = {
    "open": ("●", "ok"),
    "waiting_human": ("⚑", "warn"),
    "paused": ("‖", "accent"),
    "stale": ("!", "error"),
    "closed": ("✓", "muted"),
    "failed": ("✗", "error"),
    "released": ("○", "muted"),
}
SIGNAL_STATE_ICONS: dict[str, tuple[str, str]] = {
    "pending": ("●", "warn"),
    "delivered": ("✓", "muted"),
    "archived": ("·", "muted"),
}
LEVEL_NAMES = {"pilote": "pilot", "domain": "domain", "leaf": "leaf", "solo": "solo"}
_SESS_RE = re.compile(r"^sess-(\d{8})-(\d{4})-(.+)$")


def status_icon(status: str) -> Content:
    """The one-cell icon of a claim status."""
    icon, name = STATUS_ICONS.get(status, ("?", "muted"))
    return styled(icon, role(name))


def short_id(sess_id: str, now: datetime | None = None, tz: tzinfo | None = None) -> str:
    """A session ID without ``sess-``, and without its date when it is today's (brain timezone).

    ``sess-20261129-0830-api-tests`` → ``0830-api-tests`` on 2026-11-29, else
    ``1129-0830-api-tests``. Legacy IDs lose only the ``sess-`` prefix.
    """
    match = _SESS_RE.match(sess_id)
    if not match:
        return sess_id[5:] if sess_id.startswith("sess-") else sess_id
    day, hhmm, slug = match.groups()
    if now is not None and tz is not None and now.astimezone(tz).strftime("%Y%m%d") == day:
        return f"{hhmm}-{slug}"
    return f"{day[4:]}-{hhmm}-{slug}"


def short_instance(instance: str, brain_name: str) -> str:
    """``prod@desktop`` → ``desktop`` when the brain part is this brain's name."""
    name, sep, machine = instance.partition("@")
    if sep and name == brain_name and machine:
        return machine
    return instance


def short_party(value: str, snapshot: BrainSnapshot, brain_name: str, *, slug_only: bool = False) -> str:
    """A signal's from/to shortened: session IDs by `short_id` (or to their slug), instances by `short_instance`;
    a party the record leaves empty as the core shows it (`party_text`)."""
    value = party_text(value)
    if value.startswith("sess-"):
        base, _, machine = value.partition("@")
        parts = base.split("-", 3)
        shown = parts[3] if slug_only and len(parts) == 4 else short_id(base, snapshot.now, snapshot.tz)
        return f"{shown}@{machine}" if machine else shown
    return short_instance(value, brain_name)


#: ``-264d13h``: a duration of 10 days or more, its hours after its days.
_MANY_DAYS = re.compile(r"(-?\d{2,}d)\d\dh")


#: The age of a moment under a minute ago (`age`); `ago` says it as "just now".
JUST_NOW_AGE = "<1m"


def in_column(duration: str) -> str:
    """A duration for a narrow table column: from 10 days on, its days only (``-264d13h`` → ``-264d``); the
    hours of months mean little, and whole days fit where the hours would be cut."""
    return _MANY_DAYS.sub(r"\1", duration)


def ttl_left(claim: Claim, now: datetime, *, column: bool = False) -> Content:
    """Time left before expiry: ``1h20m`` (``1m`` in the last minute); ``-5m`` in the error style once past it.
    `column`: for a table's narrow column (`in_column`)."""
    if claim.expires_at is None:
        return styled("—", MUTED)
    delta = claim.expires_at - now
    text = in_column(humanize_countdown(delta)) if column else humanize_countdown(delta)
    if delta <= timedelta(0):
        return styled(text, ERROR)
    return styled(text, WARN if delta <= timedelta(minutes=15) else None)


def age(moment: datetime | None, now: datetime, *, column: bool = False) -> str:
    """How long ago: ``<1m``, ``35m``, ``2h05m``, ``1d03h``; ``—`` when unknown; a moment a clock ahead wrote as
    ``in 15m`` (`countdown`, so it agrees with the time left said elsewhere). `column`: for a table's narrow
    column (`in_column`)."""
    if moment is None:
        return "—"
    delta = now - moment
    if _ahead(moment, now):  # counted as a TTL counts down (`countdown`): "in 15m" beside "15m left"
        text = countdown(moment, now)
    else:  # under a minute (or seconds ahead: a write since the last tick) is no whole minute: never "0m"
        text = humanize_delta(delta) if delta >= timedelta(minutes=1) else JUST_NOW_AGE
    return in_column(text) if column else text


def _ahead(moment: datetime, now: datetime) -> bool:
    """`moment` is a minute or more after `now`: a clock ahead of this one wrote it. Less is a write made since
    the cockpit's last tick (a hook's, seconds ago): just now."""
    return moment - now >= timedelta(minutes=1)


def ago(moment: datetime | None, now: datetime, *, column: bool = False) -> str:
    """A past moment as ``35m ago`` (``just now`` under a minute); one still to come (a clock ahead of this one
    wrote it) as ``in 17m``, never ``in 17m ago``; ``—`` when unknown. `column`: for a table's narrow column
    (`in_column`)."""
    text = age(moment, now, column=column)
    if text == JUST_NOW_AGE:
        return "just now"
    return text if moment is None or _ahead(moment, now) else f"{text} ago"


def countdown(moment: datetime, now: datetime) -> str:
    """Time to `moment` as a TTL counts it (`humanize_countdown`): ``in 1m`` for its last minute, ``1m ago`` from
    the instant it passed — never ``in 0m`` nor ``0m ago``."""
    text = humanize_countdown(moment - now)
    return f"{text[1:]} ago" if text.startswith("-") else f"in {text}"


def level_name(claim: Claim) -> str:
    """The claim's level as shown in tables."""
    return LEVEL_NAMES.get(claim.level, claim.level)


def stale_since(claim: Claim, tz: tzinfo) -> datetime | None:
    """When the claim expired (its expiry), else when it was marked stale."""
    if claim.expires_at is not None:
        return claim.expires_at
    return try_parse_timestamp(claim.stale_since, tz)


def result_of(claim: Claim) -> Mapping[str, Any]:
    """The claim's `result` mapping ({} when absent)."""
    return claim.result.data if claim.result is not None else {}


def claim_matches(claim: Claim, needle: str) -> bool:
    """True when the filter text occurs in the claim's ID, instance, scope, story, type or status."""
    if not needle:
        return True
    hay = " ".join((claim.sess_id, claim.instance, claim.scope_text, claim.story, claim.type, claim.status,
                    claim.satellite_type or "")).lower()
    return needle.lower() in hay


def signal_matches(sig: Signal, needle: str) -> bool:
    """True when the filter text occurs in the signal's ID, parties, type, scope or payload."""
    if not needle:
        return True
    hay = " ".join((sig.sig_id, sig.sender, sig.to, sig.type, sig.scope, sig.payload, sig.state)).lower()
    return needle.lower() in hay


def format_clock(moment: datetime, tz: tzinfo) -> str:
    """``2026-11-29 10:00 UTC`` in the brain's display timezone."""
    local = moment.astimezone(tz)
    return f"{local:%Y-%m-%d %H:%M} {local.tzname() or ''}".rstrip()
