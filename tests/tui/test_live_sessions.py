"""Live sessions in the cockpit (SPEC 20.4): the agent's state, last tool and last commit in the claims table,
the tree and beside each stale claim.

The Pilot tests read real hook records (`core.agents`) and the demo brain's real git history; the snapshot
fixes the live data itself (a commit hash depends on the machine's git identity).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.sessions import agents
from brain_tui.core.sessions.live import LiveSession
from brain_tui.core.sync.audit import LogEntry

from .conftest import DEPLOY, NOW, PILOT, SEARCH, STALE, screen_text, select, settle

pytestmark = pytest.mark.anyio


def record(root: Path) -> None:
    """The hooks' records: the pilot works, a satellite waits for input, the stale claim's session ended."""
    agents.record_binding(root, PILOT, "agent-pilot", NOW - timedelta(minutes=30))
    agents.record_activity(root, PILOT, "agent-pilot", NOW - timedelta(minutes=2), tool="Edit",
                           touched=["brain-engine/api/schema.md"])
    agents.record_state(root, SEARCH, "agent-search", "needs_input", NOW - timedelta(minutes=4))
    agents.record_state(root, STALE, "agent-notes", "ended", NOW - timedelta(hours=3))


async def test_claims_table_tree_and_stale_pane_show_the_sessions(make_app, demo_root: Path) -> None:  # noqa: ANN001
    record(demo_root)
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        live = app.live_sessions
        assert set(live) == {PILOT, SEARCH, STALE}
        assert live[PILOT].state == "working" and live[PILOT].last_commit is not None
        assert PILOT in live[PILOT].last_commit.message  # its own open, found in the brain's git log
        text = screen_text(app)
        assert "● working Edit 2m" in text
        assert "? needs input 4m" in text
        assert "✕ ended 3h00m" in text  # beside the stale claim: its session is gone
        await select(pilot, "#active", DEPLOY)  # a claim without an agent: nothing invented
        assert app.screen.query_one("#active").get_cell(DEPLOY, "agent").plain == "—"


async def test_without_any_bound_agent_no_column_is_added(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        assert app.live_sessions == {}
        columns = [str(c.label) for c in app.screen.query_one("#active").columns.values()]
        assert "Agent" not in columns


async def test_at_80_columns_the_selection_bar_carries_the_evidence(make_app, demo_root: Path) -> None:  # noqa: ANN001
    record(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", PILOT)
        await settle(pilot)
        bar = str(app.screen.query_one("#selection").render())
        assert "working Edit 2m" in bar


def _fixed_live(pilot) -> None:  # noqa: ANN001
    from brain_tui.core.sessions.agents import Liveness

    def session(sess_id: str, state: str, minutes: int, tool: str | None, commit: str | None) -> LiveSession:
        entry = (LogEntry(commit, (NOW - timedelta(minutes=minutes + 3)).isoformat(), "a <a@x>", "work", ())
                 if commit else None)
        return LiveSession(sess_id, Liveness(sess_id, "agent", state, NOW - timedelta(minutes=minutes), tool, ()),
                           entry, None)

    return {PILOT: session(PILOT, "working", 2, "Edit", "a1b2c3d"),
            SEARCH: session(SEARCH, "needs_input", 4, "Bash", None),
            STALE: session(STALE, "ended", 180, None, "9f8e7d6")}


def test_snapshot_live_sessions_120x40(snap_compare, make_app) -> None:  # noqa: ANN001
    """The wide cockpit with three bound agents: working, needs input, and a stale claim whose session ended."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        pilot.app.live_sessions = _fixed_live(pilot)
        pilot.app.show_snapshot()
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(120, 40), run_before=run_before)


def test_snapshot_live_sessions_160x45(snap_compare, make_app) -> None:  # noqa: ANN001
    """From 140 columns the Agent column adds the last tool and the last commit."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        pilot.app.live_sessions = _fixed_live(pilot)
        pilot.app.show_snapshot()
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(160, 45), run_before=run_before)
