"""Live sessions on screen (SPEC 20.4): one short Text per claim with a bound agent or a launch.

``● working Edit 2m · a1b2c3d 5m · ctx 71% · ~6 turns`` — the state, the last tool and how long ago, the
last commit in the brain by the session and its age, and its context runway when its transcript tells it.
The data is `Brain.live_sessions()` (core); this module only draws it, through safe.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from textual.content import Content

from brain_tui.core.sessions.live import LiveSession
from brain_tui.core.sessions.transcript import Peek

from .present import age, ago
from .safe import safe_text
from .styles import ACCENT, ERROR, MUTED, OK, WARN

#: The glyph of each state (a shape as well as a colour: NO_COLOR keeps the meaning).
STATE_GLYPHS = {"working": "●", "needs_input": "?", "idle": "◌", "ended": "✕", "launched": "▶", "unknown": "·"}
LiveMap = Mapping[str, LiveSession]


def _state_style(state: str) -> str:
    return {"working": OK, "needs_input": WARN, "ended": ERROR}.get(state, MUTED)


def _commit_time(live: LiveSession) -> datetime | None:
    if live.last_commit is None:
        return None
    try:
        return datetime.fromisoformat(live.last_commit.date)
    except ValueError:
        return None


def live_glyph(live: LiveSession | None) -> Content:
    """One cell: the agent's state as a glyph (blank without a bound agent)."""
    if live is None:
        return Content(" ")
    return Content.styled(STATE_GLYPHS.get(live.state, "·"), _state_style(live.state))


def live_text(live: LiveSession | None, now: datetime, *, short: bool = False) -> Content:
    """The live-session cell: state, last tool + age, last commit + age (``short``: the state and its age)."""
    if live is None:
        return Content.styled("—", MUTED)
    state = live.state
    out = Content()
    out += Content.styled(f"{STATE_GLYPHS.get(state, '·')} {state.replace('_', ' ')}", _state_style(state))
    liveness = live.liveness
    if liveness is not None and liveness.last_activity is not None:
        tool = f"{liveness.last_tool} " if liveness.last_tool and not short else ""
        out += " "
        out += safe_text(f"{tool}{age(liveness.last_activity, now)}", 40)
    if short:
        return out
    if live.last_commit is not None:
        out += Content.styled(" · ", MUTED) + safe_text(f"{live.last_commit.commit} {age(_commit_time(live), now)}", 40)
    else:
        out += Content.styled(" · no commit", MUTED)
    out += runway_text(live)
    if live.launch is not None and live.launch.target:
        out += Content.styled(" · ", MUTED) + safe_text(f"tmux {live.launch.target}", 40, style=ACCENT)
    return out


def runway_text(live: LiveSession | None) -> Content:
    """`` · ctx 71% · ~6 turns`` when the session's context runway is known (a warning colour under 10 % left),
    else nothing."""
    runway = live.runway if live is not None else None
    if runway is None:
        return Content()
    return Content.styled(" · ", MUTED) + safe_text(runway.describe(), 40, style=WARN if runway.low else MUTED)


def stale_evidence(live: LiveSession | None, now: datetime) -> Content:
    """Beside a stale claim: is its session still alive? (``no bound agent`` when nothing is known.)"""
    if live is None:
        return Content.styled("no bound agent", MUTED)
    return live_text(live, now)


def peek_text(peek: Peek | None, now: datetime) -> Content:
    """The detail's Peek block: what the agent last said (first lines), its tool call in progress or its last
    one with the target, when, its model and context runway. Every transcript string goes through safe.py."""
    if peek is None:
        return Content.styled("no transcript known or readable for its agent session", MUTED)
    out = Content()
    if peek.text:
        out += Content.styled("said:" if peek.text_at is None else f"said {ago(peek.text_at, now)}:", MUTED)
        for line in peek.text:
            out += "\n  "
            out += safe_text(line, 200)
    else:
        out += Content.styled("no assistant message read", MUTED)
    tool = peek.tool
    out += "\n"
    if tool is not None:
        out += Content.styled("running " if not tool.done else "last tool ", WARN if not tool.done else MUTED)
        out += safe_text(tool.name, 40, style=ACCENT)
        if tool.target:
            out += " "
            out += safe_text(tool.target, 160)
        if tool.at is not None:
            out += Content.styled(f" · {ago(tool.at, now)}", MUTED)
    else:
        out += Content.styled("no tool call read", MUTED)
    tail = Content()
    if peek.model:
        tail += safe_text(peek.model, 60, style=MUTED)
    if peek.runway is not None:
        if peek.model:
            tail += Content.styled(" · ", MUTED)
        tail += safe_text(peek.runway.describe(), 40, style=WARN if peek.runway.low else None)
        if peek.runway.low:
            tail += Content.styled(" — context nearly full: close or hand off", WARN)
    if tail:
        out += "\n"
        out += tail
    return out
