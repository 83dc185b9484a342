"""Sync in the cockpit (SPEC 11, issue 5): the header's sync state, `s`, the background fetch, errors.

Each test gives the demo brain a local bare remote (`git clone --bare`), so the
network is a folder: deterministic, and "unreachable" is a path that does not exist.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import claims
from brain_tui.core.rules.reconcile import LostClaim, SyncReport
from brain_tui.core.sync.remote import SyncStatus
from brain_tui.tui.app import BrainApp

from .conftest import DEPLOY, NOW, fresh, screen_text, settle

pytestmark = pytest.mark.anyio
SMALL = (80, 24)
WIDE = (120, 40)


def git(root: Path, *args: str) -> str:
    """Run git in `root` and return its stdout."""
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def add_remote(root: Path, tmp_path: Path) -> Path:
    """Give the brain an `origin` (a bare clone of itself) and fetch it: nothing ahead, nothing behind."""
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "--bare", "--quiet", str(root), str(remote)], check=True, capture_output=True)
    git(root, "remote", "add", "origin", str(remote))
    git(root, "fetch", "--quiet", "origin")
    return remote


def other_machine(remote: Path, tmp_path: Path) -> Path:
    """A second clone of the remote: another machine sharing the brain."""
    other = tmp_path / "laptop"
    subprocess.run(["git", "clone", "--quiet", str(remote), str(other)], check=True, capture_output=True)
    return other


def open_claim(brain: Brain, scope: str, slug: str) -> str:
    return brain.open_claim(claims.OpenRequest(scope=parse_scope(scope, brain.root), ttl=parse_duration("2h"),
                                                 instance=brain.instance, story=f"{slug} story", slug=slug))


def set_compose(root: Path, **keys: str) -> None:
    """Set keys of brain-compose.yml (appended: the loader keeps the last value of a key)."""
    path = root / "brain-compose.yml"
    text = path.read_text(encoding="utf-8")
    for key, value in keys.items():
        text = "\n".join(line for line in text.splitlines() if not line.startswith(f"{key}:")) + "\n"
        text += f"{key}: {value}\n"
    path.write_text(text, encoding="utf-8")


def header(app: BrainApp) -> str:
    return screen_text(app).splitlines()[0]


async def test_header_shows_ahead_behind_last_sync_and_pending(make_app, demo_root: Path, tmp_path: Path) -> None:  # noqa: ANN001
    add_remote(demo_root, tmp_path)
    open_claim(fresh(demo_root), "wiki/", "local-only")  # a local commit the remote has not seen
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        line = header(app)
        assert "↑1 ↓0" in line and "1 pending" in line
        assert app.syncer.data is not None and app.syncer.data.ahead == 1
        env = str(app.screen.query_one("#env").render())
        assert "never synced" in env and "1 pending — s pushes" in env


async def test_s_pushes_pending_changes_and_records_the_sync(make_app, demo_root: Path, tmp_path: Path,
                                                             clock) -> None:  # noqa: ANN001
    remote = add_remote(demo_root, tmp_path)
    sess = open_claim(fresh(demo_root), "wiki/", "to-push")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert "1 pending" in header(app)
        await pilot.press("s")
        await settle(pilot)
        assert app.syncer.error == ""
        assert sess in git(remote, "log", "--format=%s", "main")  # on the remote now
        line = header(app)
        assert "↑0 ↓0" in line and "synced just now" in line
        assert any("sync: pushed" in n.message for n in app._notifications)
        clock.advance(minutes=7)
        app.tick()  # the age follows the clock without any git call
        await pilot.pause()
        assert "synced 7m ago" in header(app)
    state = json.loads((demo_root / ".brain" / "sync.json").read_text())
    assert state["last_sync"] == NOW.isoformat()


async def test_unreachable_remote_shows_in_header_without_crashing(make_app, demo_root: Path,
                                                                   tmp_path: Path) -> None:  # noqa: ANN001
    add_remote(demo_root, tmp_path)
    git(demo_root, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert app.is_running and app.syncer.busy == ""
        assert "remote unreachable" in app.syncer.error
        assert "✗ remote unreachable" in header(app)
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and "sync failed: remote unreachable" in errors[-1].message
        assert "changes stay local" in errors[-1].message  # in words, never a command-line flag
        assert not any("--offline" in n.message for n in app._notifications)
        await pilot.press("1")  # the cockpit still answers keys
        assert app.screen.query_one("#active").row_keys


async def test_background_fetch_brings_another_machines_claim(make_app, demo_root: Path, tmp_path: Path) -> None:  # noqa: ANN001
    remote = add_remote(demo_root, tmp_path)
    set_compose(demo_root, sync="auto", fetch_interval="7")
    git(demo_root, "commit", "--quiet", "-m", "sync: auto", "--", "brain-compose.yml")
    git(demo_root, "push", "--quiet", "origin", "main")
    laptop = other_machine(remote, tmp_path)
    theirs = open_claim(Brain(laptop, now=NOW.isoformat(), instance="prod@laptop", sync="sync"), "agents/", "remote")
    app = make_app()
    assert app.syncer.auto_fetch and app.syncer.fetch_interval_s == 7.0
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert theirs not in app.screen.query_one("#active").row_keys  # nothing fetched yet (no timers in tests)
        app.syncer.background_fetch()  # what the 7 s timer calls
        await settle(pilot)
        assert app.syncer.error == ""
        assert theirs in app.screen.query_one("#active").row_keys
        line = header(app)
        assert "↑0 ↓0" in line and "synced just now" in line  # fetched and integrated just now: in sync


async def test_live_cockpit_starts_the_fetch_timer_at_the_configured_interval(make_app, demo_root: Path,
                                                                               tmp_path: Path) -> None:  # noqa: ANN001
    add_remote(demo_root, tmp_path)
    set_compose(demo_root, sync="auto", fetch_interval="45")
    app = make_app(live=True)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert app.syncer.timer is not None and app.syncer.timer._interval == 45.0
        app.feed.stop()


async def test_manual_sync_starts_no_fetch_timer(make_app, demo_root: Path, tmp_path: Path) -> None:  # noqa: ANN001
    add_remote(demo_root, tmp_path)
    app = make_app(live=True)
    assert not app.syncer.auto_fetch  # the demo says `sync: manual`
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert app.syncer.timer is None
        app.feed.stop()


async def test_background_fetch_failure_is_told_once_and_then_recovers(make_app, demo_root: Path,
                                                                       tmp_path: Path) -> None:  # noqa: ANN001
    remote = add_remote(demo_root, tmp_path)
    git(demo_root, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        for _ in range(3):
            app.syncer.background_fetch()
            await settle(pilot)
        warnings = [n for n in app._notifications if "background fetch failed" in n.message]
        assert len(warnings) == 1  # not one every 30 s
        assert "✗" in header(app)
        git(demo_root, "remote", "set-url", "origin", str(remote))
        app.syncer.background_fetch()
        await settle(pilot)
        assert app.syncer.error == "" and "✗" not in header(app)
        assert any("reachable again" in n.message for n in app._notifications)


async def test_readonly_background_fetch_leaves_the_work_tree(make_app, demo_root: Path, tmp_path: Path) -> None:  # noqa: ANN001
    remote = add_remote(demo_root, tmp_path)
    laptop = other_machine(remote, tmp_path)
    theirs = open_claim(Brain(laptop, now=NOW.isoformat(), instance="prod@laptop", sync="sync"), "agents/", "ro")
    head = git(demo_root, "rev-parse", "HEAD")
    app = make_app(readonly=True)
    async with app.run_test(size=WIDE) as pilot:
        app.syncer.background_fetch()
        await settle(pilot)
        assert "↓1" in header(app)  # fetched: one commit behind
        assert theirs not in app.screen.query_one("#active").row_keys
        await pilot.press("s")  # refused: read-only
        await settle(pilot)
    assert git(demo_root, "rev-parse", "HEAD") == head


async def test_detail_shows_verify_drift(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """The detail view runs `bsi verify`: a commit of the session outside its scope is listed."""
    from brain_tui.tui.screens.detail import DetailScreen

    from .conftest import select

    outside = demo_root / "wiki" / "drift.md"
    outside.parent.mkdir(exist_ok=True)
    outside.write_text("not deploy/vps.md\n", encoding="utf-8")
    git(demo_root, "add", "wiki/drift.md")
    git(demo_root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "--quiet", "-m",
        f"notes\n\nBSI-Session: {DEPLOY}")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        drift = str(app.screen.query_one("#verify").render())
        assert "1 file(s) changed outside the scope" in drift and "wiki/drift.md" in drift


async def test_detail_without_drift_says_so(make_app) -> None:  # noqa: ANN001
    from brain_tui.tui.screens.detail import DetailScreen

    from .conftest import select

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailScreen)
        assert "no drift" in str(app.screen.query_one("#verify").render())


def test_sync_badge_forms(demo_root: Path) -> None:
    from brain_tui.tui.widgets.header import sync_badge

    snap = fresh(demo_root).snapshot()
    base = SyncStatus(mode="manual", has_remote=True, branch="main", ahead=0, behind=3,
                      last_sync="2026-11-29T09:50:00+00:00", pending_since=None, fetch_interval_s=30)
    assert sync_badge(base, snap).plain == " ⇅ ↑0 ↓3 · synced 10m ago"
    assert sync_badge(base, snap, compact=True).plain == " ↑0↓3 10m ago"
    pending = replace(base, ahead=2, pending_since="2026-11-29T09:41:00+00:00")
    assert sync_badge(pending, snap).plain == " ⇅ ↑2 ↓3 · 2 pending since 09:41"
    assert sync_badge(base, snap, error="remote \x1b[31munreachable").plain.startswith(
        " ⇅ ↑0 ↓3 · ✗ remote ⟨ESC⟩")  # an error from git is shown inert
    assert sync_badge(replace(base, has_remote=False), snap).plain == ""
    assert sync_badge(replace(base, last_sync=None), snap).plain.endswith("never synced")


def test_the_sync_message_reads_the_report() -> None:
    from brain_tui.tui.syncing import describe_sync

    assert describe_sync(SyncReport(fetched=True, pushed=True, ahead=0, behind=0)) == "sync: pushed, ↑0 ↓0"
    lost = SyncReport(fetched=True, rebased=True, behind=2, lost=(
        LostClaim("sess-20261129-0900-a", "wiki/", ()), LostClaim("sess-20261129-0901-b", "todo/", ())))
    assert describe_sync(lost) == ("sync: up to date, local commits rebased on the remote, ↑0 ↓2; "
                                   "lost while offline: sess-20261129-0900-a, sess-20261129-0901-b")
    dropped = SyncReport(fetched=True, rebased=True, behind=1, dropped=("bsi: close claim sess-20261129-0900-a",))
    assert describe_sync(dropped) == ("sync: up to date, local commits rebased on the remote, ↑0 ↓1; not kept "
                                      "(the other machine's side won): bsi: close claim sess-20261129-0900-a")
