"""`L` launches (an open claim, or the claim a HANDOFF asks for) and `A` attaches, from the cockpit (SPEC 20.5).

The agent is a recorder script; tmux is a private server (`private_tmux`), killed afterwards.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.tui.screens.launch import LaunchDialog
from tests.clock import wait_for as until
from tests.tmux import needs_tmux

from .conftest import DEPLOY, GATED, NOW, PILOT, fresh, screen_text, select, settle

pytestmark = [pytest.mark.anyio, needs_tmux]
RECORDER = ("import json, os, sys, time\n"
            "json.dump({'argv': sys.argv[2:], 'session': os.environ.get('BSI_SESSION')}, open(sys.argv[1], 'w'))\n"
            "time.sleep(60)\n")


def configure(root: Path, tmp_path: Path) -> Path:
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER, encoding="utf-8")
    out = tmp_path / "launched.json"
    (root / "brain-compose.yml").write_text(json.dumps(
        {"launch": {"command": [sys.executable, str(script), str(out), "{sess_id}", "{story}"]}}), encoding="utf-8")
    return out


def wait_for(path: Path) -> dict[str, object]:
    """What the recorder wrote, once it is whole JSON (the window starts asynchronously)."""
    def read() -> dict[str, object] | None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # not there yet, or written half
            return None

    return until(read, timeout=20, every=0.05, what="the agent to start")


async def test_L_shows_the_argv_then_launches_in_tmux(make_app, demo_root: Path, tmp_path: Path,  # noqa: ANN001
                                                      private_tmux: Path) -> None:
    out = configure(demo_root, tmp_path)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("L")
        await settle(pilot)
        assert isinstance(app.screen, LaunchDialog)
        text = screen_text(app)
        assert "argv[3]" in text and DEPLOY in text and "tmux window" in text
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, LaunchDialog)
    doc = wait_for(out)
    assert doc["argv"] == [DEPLOY, "Deployment checklist for the VPS"] and doc["session"] == DEPLOY
    assert [r.sess_id for r in fresh(demo_root).launches.running()] == [DEPLOY]


async def test_L_refuses_a_claim_that_is_not_open_inside_the_dialog(make_app, demo_root: Path,  # noqa: ANN001
                                                                   tmp_path: Path, private_tmux: Path) -> None:
    out = configure(demo_root, tmp_path)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("L")
        await settle(pilot)
        assert "(allowed from open)" in screen_text(app)
        await pilot.press("enter")  # the focus is on Cancel
        await settle(pilot)
        assert not isinstance(app.screen, LaunchDialog)
    assert not out.exists()


async def test_L_on_a_handoff_opens_its_claim_then_launches_it(make_app, demo_root: Path,  # noqa: ANN001
                                                              tmp_path: Path, private_tmux: Path) -> None:
    out = configure(demo_root, tmp_path)
    sig = Brain(demo_root, clock=lambda: NOW).signals.send(DEPLOY, PILOT, "HANDOFF",
                                                         f"launch type:test scope:wiki/ — after {DEPLOY}", "wiki/")
    assert sig
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, "#signals", sig)
        await pilot.press("L")
        await settle(pilot)
        assert isinstance(app.screen, LaunchDialog)
        await pilot.press("enter")
        await settle(pilot)
    doc = wait_for(out)
    snapshot = fresh(demo_root).snapshot()
    new = snapshot.claim(str(doc["argv"][0]))  # type: ignore[index]
    assert new is not None and new.status == "open" and new.satellite_type == "test" and new.parent == PILOT
    assert new.scope_text == "wiki/"
    assert next(s for s in snapshot.signals if s.sig_id == sig).state == "delivered"


async def test_A_without_a_launched_agent_says_so(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("A")
        await settle(pilot)
        assert any("no launched agent" in n.message for n in app._notifications)


async def test_readonly_cockpit_cannot_launch(make_app, demo_root: Path, tmp_path: Path) -> None:  # noqa: ANN001
    out = configure(demo_root, tmp_path)
    app = make_app(readonly=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("L")
        await settle(pilot)
        assert not isinstance(app.screen, LaunchDialog)
    assert not out.exists()


async def test_L_without_a_launch_command_says_how_to_add_one(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("L")
        await settle(pilot)
        assert isinstance(app.screen, LaunchDialog)
        assert not app.screen.query("#submit")  # nothing to launch: no Launch button, only Close
        assert "no launch command configured" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, LaunchDialog)


async def test_L_on_a_handoff_whose_claim_would_conflict_opens_nothing(make_app, demo_root: Path,  # noqa: ANN001
                                                                      tmp_path: Path) -> None:
    out = configure(demo_root, tmp_path)
    sig = Brain(demo_root, clock=lambda: NOW).signals.send(DEPLOY, PILOT, "HANDOFF",
                                                         f"launch type:test scope:deploy/ — after {DEPLOY}", "deploy/")
    before = len(fresh(demo_root).snapshot().claims)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, "#signals", sig)
        await pilot.press("L")
        await settle(pilot)
        text = screen_text(app)
        assert "opens a test satellite on deploy/" in text and "would be refused" in text
        assert not app.screen.query("#submit")  # nothing to launch: no Launch button, only Close
        await pilot.press("enter")  # the focus is on Cancel
        await settle(pilot)
    assert len(fresh(demo_root).snapshot().claims) == before and not out.exists()


async def test_A_in_a_readonly_cockpit_attaches_a_client_that_only_watches(  # noqa: ANN001
        make_app, demo_root: Path, tmp_path: Path, private_tmux: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--readonly` disables every action: `A` still shows the agent, through a read-only tmux client (`-r`) that
    types nothing into its pane."""
    import contextlib
    import subprocess

    from brain_tui.tui.screens import launch as launch_screen

    out = configure(demo_root, tmp_path)
    Brain(demo_root, now=NOW).launches.start(DEPLOY, tmux=True)
    wait_for(out)
    ran: list[list[str]] = []
    real_run = subprocess.run

    def run(argv: list[str], *args: object, **kwargs: object) -> object:
        if argv and argv[0] == "tmux" and ("attach-session" in argv or "switch-client" in argv):
            ran.append(list(argv))
            return subprocess.CompletedProcess(argv, 0, "", "")
        return real_run(argv, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(launch_screen.subprocess, "run", run)
    app = make_app(readonly=True)
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
    async with app.run_test(size=(100, 30)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("A")
        await settle(pilot)
    assert len(ran) == 1 and ran[0][-4:-1] == ["attach-session", "-r", "-t"], ran
