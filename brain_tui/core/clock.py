"""Time: the one injectable clock, timestamp parsing/formatting and durations (SPEC 3, 6.4).

Nothing in the product reads the system clock except `system_clock` here.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo

from brain_tui.core.errors import InvalidData
from brain_tui.core.lazy_re import LazyPattern

Clock = Callable[[], datetime]

#: A timestamp this far in the future is flagged `clock-skew` (SPEC 3).
SKEW_TOLERANCE = timedelta(minutes=5)
#: No claim stays non-stale past this long after opening (SPEC 6.4).
MAX_TTL = timedelta(hours=8)
#: TTL classes of the seeds (SPEC 6.4).
TTL_CLASSES: dict[str, timedelta] = {
    "short": timedelta(hours=2),
    "deep": timedelta(hours=4),
    "long": timedelta(hours=8),
}
DEFAULT_TTL = TTL_CLASSES["short"]

_DURATION_RE = LazyPattern(r"^(?:([0-9]{1,6})h)?(?:([0-9]{1,6})m)?$", re.ASCII)
#: Years a timestamp may name: anything outside is a typo or an attack, and would overflow date arithmetic.
MIN_YEAR, MAX_YEAR = 1900, 8999


class LocalZone(tzinfo):
    """The machine's zone (``TZ``, else /etc/localtime), with its daylight-saving rules, as the C library reads it.

    The offset of a time is the one the zone has on that time's own date, never the one it has today: a naive
    legacy time written in July is read with the summer offset in December. Nothing here reads the clock.
    """

    @staticmethod
    def _fallback() -> timedelta:
        return timedelta(seconds=-time.timezone)

    def _wall_offset(self, wall: datetime) -> timedelta:
        try:
            stamp = time.mktime((wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second, 0, 0, -1))
            return timedelta(seconds=time.localtime(stamp).tm_gmtoff)
        except (OverflowError, ValueError, OSError):
            return self._fallback()

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return self._fallback() if dt is None else self._wall_offset(dt)

    def dst(self, dt: datetime | None) -> timedelta:
        return self.utcoffset(dt) - self._fallback()

    def tzname(self, dt: datetime | None) -> str:
        offset = int(self.utcoffset(dt).total_seconds())
        sign = "-" if offset < 0 else "+"
        return f"UTC{sign}{abs(offset) // 3600:02d}:{abs(offset) % 3600 // 60:02d}"

    def fromutc(self, dt: datetime) -> datetime:
        try:
            stamp = (dt.replace(tzinfo=UTC) - _EPOCH).total_seconds()
            offset = timedelta(seconds=time.localtime(stamp).tm_gmtoff)
        except (OverflowError, ValueError, OSError):
            offset = self._fallback()
        return (dt + offset).replace(tzinfo=self)

    def fingerprint(self) -> str:
        """What tells this zone's rules from another's: its offsets on the 1st and 15th of every month of a year."""
        stamps = (datetime(2026, month, day, 12, tzinfo=UTC).timestamp() for month in range(1, 13) for day in (1, 15))
        return ",".join(str(time.localtime(stamp).tm_gmtoff) for stamp in stamps)

    def __repr__(self) -> str:
        return "LocalZone()"


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def usable_zone_name(value: object) -> str | None:
    """The IANA zone a brain-compose `timezone:` value names, or None when it names none (not a string, blank,
    unknown, a path). Stray spaces are trimmed and ``utc`` in any case is ``UTC`` (SPEC 12: a tolerant loader)."""
    if not isinstance(value, str) or not value.strip():
        return None
    name = value.strip()
    if name.upper() == "UTC":
        return "UTC"
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
    return name


def zone_from_name(name: str | None) -> tzinfo:
    """The IANA zone named (brain-compose `timezone:`, such as ``Europe/Paris`` or ``UTC``), else the machine's."""
    if name == "UTC":
        return UTC  # the common case, without loading zoneinfo and its tz database paths (start-up, issue 18)
    if name:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            return ZoneInfo(str(name))
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return LocalZone()  # the machine's, daylight saving included


def system_clock() -> datetime:
    """The real clock, timezone-aware (UTC)."""
    return datetime.now(UTC)


def fixed_clock(at: datetime) -> Clock:
    """A clock that always answers `at` (tests, demos, `--now`)."""
    return lambda: at


def make_clock(now: str | None, tz: tzinfo) -> Clock:
    """Build the clock from `--now`, else `$BRAIN_NOW`, else the system clock.

    An empty `--now` is a bad date, refused; an empty `$BRAIN_NOW` is unset. Raises InvalidData when the given time
    does not parse.
    """
    text = now if now is not None else os.environ.get("BRAIN_NOW") or None
    if text is not None:
        return fixed_clock(parse_timestamp(text, tz, what="--now" if now is not None else "$BRAIN_NOW"))
    return system_clock


def parse_timestamp(value: object, tz: tzinfo, *, what: str = "date") -> datetime:
    """Parse a timestamp as written by the product or by the legacy tools.

    Naive values are local time in `tz` (the brain's timezone); a trailing ``Z`` means UTC. Accepts ``datetime``/
    ``date`` objects too. Raises InvalidData when the value is not a timestamp.
    """
    if isinstance(value, datetime):
        return _in_range(value if value.tzinfo else _local(value, tz), value, what)
    if isinstance(value, date):
        return _in_range(_local(datetime(value.year, value.month, value.day), tz), value, what)
    if not isinstance(value, str) or not value.strip():
        raise InvalidData(f"invalid {what}: {value!r} is not an ISO 8601 timestamp")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    if not text.isascii():  # fromisoformat reads full-width and other non-ASCII digits
        raise InvalidData(f"invalid {what}: {value!r} is not an ISO 8601 timestamp")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidData(f"invalid {what}: {value!r} is not an ISO 8601 timestamp") from None
    return _in_range(parsed if parsed.tzinfo else _local(parsed, tz), value, what)


def _local(naive: datetime, tz: tzinfo) -> datetime:
    """A naive time read in zone `tz`, pinned to the UTC offset it has there.

    A fixed offset, not the zone itself: Python adds a duration to a zoned time on the wall clock, so a TTL
    across a daylight-saving change would last an hour less or more (SPEC 6.4). Same instant, same wall time.
    """
    moment = naive.replace(tzinfo=tz)
    offset = moment.utcoffset()
    return moment if offset is None else moment.replace(tzinfo=timezone(offset))


def _in_range(moment: datetime, value: object, what: str) -> datetime:
    """`moment` when its year is in MIN_YEAR..MAX_YEAR (date arithmetic on it cannot overflow), else InvalidData."""
    if not MIN_YEAR <= moment.year <= MAX_YEAR:
        shown = value if isinstance(value, str) else moment.isoformat()
        raise InvalidData(f"invalid {what}: {shown!r} is out of range (years {MIN_YEAR} to {MAX_YEAR})")
    return moment


#: The years (as written, in the time's own offset) git dates a commit in: any other is "invalid date format".
COMMIT_YEARS = (1970, 2099)


def require_commit_date(moment: datetime) -> None:
    """InvalidData (65) when git cannot date a commit at `moment`: a `--now` that reads accept (years 1900 to
    8999) but a commit cannot carry is a bad date on the command line (SPEC 13), not a failed commit."""
    first, last = COMMIT_YEARS
    if not first <= moment.year <= last:
        raise InvalidData(f"invalid --now (or $BRAIN_NOW) for a write: git dates a commit from {first} to {last}, "
                          f"not {moment.isoformat()}; nothing was written (reads at that time are answered)")


def try_parse_timestamp(value: object, tz: tzinfo) -> datetime | None:
    """Like `parse_timestamp` but answers None instead of raising."""
    if value is None:
        return None
    try:
        return parse_timestamp(value, tz)
    except InvalidData:
        return None


def format_timestamp(moment: datetime, tz: tzinfo) -> str:
    """Write a timestamp as ISO 8601 with its UTC offset, in zone `tz`.

    Seconds are kept only when non-zero: ``2026-11-29T09:30:00+01:00``.
    """
    return moment.astimezone(tz).replace(microsecond=0).isoformat()


def parse_duration(text: str, *, what: str = "TTL") -> timedelta:
    """Parse a TTL like ``90m``, ``2h``, ``2h30m`` or a class name (short/deep/long); InvalidData when it is zero,
    negative, malformed, or above 8 h."""
    raw = str(text).strip().lower()
    if raw in TTL_CLASSES:
        return TTL_CLASSES[raw]
    if not raw:
        raise InvalidData(f"invalid {what} {text!r}: it is empty (use a duration like 90m, 2h or 2h30m)")
    match = _DURATION_RE.match(raw)
    if not match or not any(match.groups()):
        if re.fullmatch(r"(?:[0-9]+h)?(?:[0-9]+m)?", raw, re.ASCII):
            raise InvalidData(f"invalid {what} {text!r}: at most 8h")
        raise InvalidData(f"invalid {what} {text!r}: use a duration like 90m, 2h or 2h30m (at most 8h)")
    hours, minutes = (int(g) if g else 0 for g in match.groups())
    if match.group(1) and minutes >= 60:  # `1h60m` is not a spelling of 2h: after hours, minutes are 0..59
        raise InvalidData(f"invalid {what} {text!r}: minutes after hours must be below 60 (like 2h30m)")
    duration = timedelta(hours=hours, minutes=minutes)  # at most 6 digits each: cannot overflow
    if duration <= timedelta(0):
        raise InvalidData(f"invalid {what} {text!r}: must be positive")
    if duration > MAX_TTL:
        raise InvalidData(f"invalid {what} {text!r}: at most 8h")
    return duration


def format_duration(duration: timedelta) -> str:
    """Format a duration the way TTLs are written: ``2h``, ``90m`` → ``1h30m``."""
    minutes = int(duration.total_seconds() // 60)
    hours, rest = divmod(minutes, 60)
    if hours and rest:
        return f"{hours}h{rest}m"
    if hours:
        return f"{hours}h"
    return f"{rest}m"


def humanize_delta(delta: timedelta) -> str:
    """Short human form of a signed duration: ``1h05m``, ``-12m``, ``3d02h``."""
    seconds = int(delta.total_seconds())
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes = seconds // 60
    if days:
        return f"{sign}{days}d{hours:02d}h"
    if hours:
        return f"{sign}{hours}h{minutes:02d}m"
    return f"{sign}{minutes}m"


def humanize_countdown(delta: timedelta) -> str:
    """A time left (or past, negative) as `humanize_delta` writes it, never ``0m`` nor ``-0m``.

    Time left is rounded up to the minute (30 s left is ``1m``); time past is whole minutes
    past, at least one (the instant of expiry and 30 s past are ``-1m``, 5 min 4 s past ``-5m``).
    """
    seconds = delta.total_seconds()
    if seconds > 0:
        return humanize_delta(timedelta(minutes=-(-seconds // 60)))
    return humanize_delta(timedelta(minutes=-max(1, int(-seconds // 60))))


def claim_ttl(raw: object, default: timedelta) -> timedelta:
    """The TTL a claim's `ttl:` field gives (`2h`, `90m`, or minutes as a number); `default` when absent or bad.

    One rule for reading a claim's expiry and for renewing it, so a legacy claim
    without `ttl:` is renewed by the brain's `ttl_default` it was read with.
    """
    if raw is None:
        return default
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = f"{raw}m"
    try:
        return parse_duration(str(raw))
    except InvalidData:
        return default
