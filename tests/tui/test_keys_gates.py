"""Gate keys: approve, reject, pause/resume cascades, the gate screen — checked on disk.

What the cockpit does must be what `bsi` sees: tests re-read the brain with a
fresh `Brain` (the CLI's code path) after the keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button

from brain_tui.tui.screens.confirm import CascadeDialog, GateDecisionDialog
from brain_tui.tui.screens.queue import QueueScreen as GateScreen

from .conftest import (
    DEPLOY,
    DOMAIN,
    GATED,
    PILOT,
    SEARCH,
    fresh,
    last_commit,
    screen_text,
    select,
    settle,
    status,
)

pytestmark = pytest.mark.anyio
SMALL = (80, 24)


async def test_approve_in_the_cockpit_is_approved_for_bsi(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a")
        dialog = app.screen
        assert isinstance(dialog, GateDecisionDialog)
        assert "deploy to staging?" in screen_text(app)  # the gate message is shown
        assert app.focused is dialog.query_one("#submit", Button)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, GateDecisionDialog)
    # The gate came from an exit trigger at close: approving closes the claim.
    assert status(demo_root, GATED) == "closed"
    assert last_commit(demo_root) == f"bsi: gate APPROVED {GATED}"


async def test_a_stray_key_in_the_dialog_decides_nothing(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a", "a", "x", "y")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog)
        await pilot.press("escape")
        await settle(pilot)
    assert status(demo_root, GATED) == "waiting_human"


async def test_reject_needs_a_reason(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("x")
        dialog = app.screen
        assert dialog.query_one("#submit", Button).disabled
        await pilot.press("enter")  # empty reason: nothing happens
        await settle(pilot)
        assert status(demo_root, GATED) == "waiting_human"
        await pilot.press(*"flaky")
        assert not dialog.query_one("#submit", Button).disabled
        await pilot.press("enter")
        await settle(pilot)
    assert status(demo_root, GATED) == "failed"
    claim = fresh(demo_root).snapshot().claim(GATED)
    assert claim is not None and claim.data["reject_reason"] == "flaky"


async def test_pause_lists_the_cascade_and_resume_restores_the_gate(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", PILOT)
        await pilot.press("p")
        assert isinstance(app.screen, CascadeDialog)
        text = screen_text(app)
        assert "will also pause 4 descendant(s)" in text
        for short in ("0810-api-domain", "0820-api-search", "0830-api-tests", "0950-deploy-notes"):
            assert short in text
        await pilot.press("enter")
        await settle(pilot)
        assert [status(demo_root, s) for s in (PILOT, DOMAIN, SEARCH, GATED, DEPLOY)] == ["paused"] * 5
        await select(pilot, "#active", PILOT)
        await pilot.press("u")
        assert "will also resume 4 descendant(s)" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
    assert status(demo_root, PILOT) == "open"
    assert status(demo_root, GATED) == "waiting_human"  # a pending gate is never lost


async def test_queue_lists_what_needs_you_most_unblocking_first(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app(gates=True)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GateScreen)
        keys = app.screen.query_one("#gate-table").row_keys
        # the gate (holding its domain and pilot) first, the BLOCKED_ON next (a tie: a gate is more urgent),
        # the lone stale claim, then the breath alert that holds nothing up; the gate's own HUMAN_GATE signal is
        # folded into its row
        assert [k.split(":")[0] for k in keys] == ["gate", "signal", "stale", "breath"] and GATED in keys[0]
        assert "30m" in screen_text(app)  # the gate's time left
        info = str(app.screen.query_one("#gate-info").render())
        assert "deploy to staging?" in info and "approve → closed" in info
        assert "brain-engine/tests/test_search.py" in info  # the result's files
        await pilot.press("a")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.query_one("#gate-table").row_keys == keys[1:]
        await pilot.press("escape")
        assert not isinstance(app.screen, GateScreen)
    assert status(demo_root, GATED) == "closed"


async def test_the_cancel_button_closes_a_dialog_and_decides_nothing(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a")
        assert isinstance(app.screen, GateDecisionDialog)
        app.screen.query_one("#cancel", Button).press()
        await settle(pilot)
        assert not isinstance(app.screen, GateDecisionDialog)
    assert status(demo_root, GATED) == "waiting_human"


async def pause(pilot: Any, app: Any, sess: str) -> None:
    """Select `sess` among the claims, press `p` and confirm the cascade dialog."""
    await select(pilot, "#active", sess)
    await pilot.press("p")
    assert isinstance(app.screen, CascadeDialog)
    await pilot.press("enter")


async def test_a_pause_while_git_is_mid_merge_is_placed_waits_for_git_and_is_not_announced_as_expiring(  # noqa: ANN201
        make_app, demo_root: Path) -> None:  # noqa: ANN001
    """The brake works whatever git's state (`records.held_back`): the toast says the commit waits for git.

    The queue's `not committed` item waits on git, not on a clock: it is counted as needing the human, never
    as expiring (no `⏳`, no "expiring" toast offering a renewal that would change nothing). The keys after the
    pause only read (`g`, `escape`, `n`): the pause is still the one thing on disk, uncommitted, at the end."""
    import subprocess

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=demo_root, capture_output=True, text=True).stdout
    (demo_root / ".git" / "MERGE_HEAD").write_text(head)  # as an agent's program could write it
    before = last_commit(demo_root)
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await pause(pilot, app, SEARCH)
        await settle(pilot)
        told_now = " ".join(n.message for n in app._notifications)
        assert "not committed yet" in told_now and "a merge is in progress" in told_now, told_now
        assert "held" in [item.kind for item in app.queue if item.sess_id == SEARCH]
        shown = str(app.screen.query_one("#header").render())
        assert "⏳" not in shown and "⚑" in shown, shown
        assert not [n for n in app._notifications if n.title == "expiring"]
        await pilot.press("g")
        assert "expiring" not in screen_text(app)
        assert "not committed" in screen_text(app)
        await pilot.press("escape")
        for _ in app.queue:
            await pilot.press("n")
        told = [n.message for n in app._notifications]
        assert any("· not committed ·" in message for message in told), told  # the queue's word, not "held"
        assert not any("· held ·" in message for message in told), told
    assert status(demo_root, SEARCH) == "paused"
    assert last_commit(demo_root) == before


async def test_a_pause_kept_waiting_on_the_writer_lock_says_who_holds_it(  # noqa: ANN201
        make_app, demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """Any process may hold `.brain/lock` (an agent's program too): the pause waits, a toast names the holder, and
    the pause lands once it is gone (`records.lock_holders`)."""
    import subprocess
    import sys

    from brain_tui.core import write_path

    # the wait is told after 1 s; a tenth of it here (the lock is held until the test kills its holder)
    monkeypatch.setattr(write_path, "_LOCK_PATIENCE_S", 0.1)

    script = tmp_path / "hold.py"
    script.write_text("import fcntl, sys, time\nhandle = open(sys.argv[1], 'rb')\n"
                      "fcntl.flock(handle.fileno(), fcntl.LOCK_SH)\nprint('held', flush=True)\ntime.sleep(600)\n")
    holder = subprocess.Popen([sys.executable, str(script), str(demo_root / ".brain" / "lock")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            await pause(pilot, app, SEARCH)
            for _ in range(200):  # until the toast comes (a hang guard: it comes after 1 s)
                waiting = [n.message for n in app._notifications if n.title == "waiting"]
                if waiting:
                    break
                await pilot.pause(0.05)
            assert waiting and f"pid {holder.pid}" in waiting[0] and f"`kill {holder.pid}`" in waiting[0], waiting
            assert status(demo_root, SEARCH) == "open"  # nothing written while the lock is held
            holder.kill()
            holder.wait()
            for _ in range(200):
                if status(demo_root, SEARCH) == "paused":
                    break
                await pilot.pause(0.05)
            await settle(pilot)
        assert status(demo_root, SEARCH) == "paused"
    finally:
        holder.kill()
        holder.wait()
