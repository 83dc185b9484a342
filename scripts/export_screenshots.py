"""Export the README screenshots (SVG) of the cockpit from the demo brain at a fixed time.

    python scripts/export_screenshots.py [--out screenshots]

Each screenshot is taken with `App.run_test` + `save_screenshot` on a fresh demo
brain built for 2026-11-29 10:00 UTC, with the same clock injected into the app,
no timers or watchers, and a fixed environment reading (the real one depends on
the machine), so running it again gives the same files. The demo brain gets a
local bare remote, last synced at 09:58, so the header shows the sync state.
Never edit the SVGs by hand: change the cockpit, then run this script.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
INSTANCE = "prod@desktop"
GATED = "sess-20261129-0830-api-tests"

#: A fixed environment reading in the shape of `bsi env --json`.
DEMO_ENV: dict[str, Any] = {
    "hostname": "desktop",
    "instance": INSTANCE,
    "git": {"branch": "main", "dirty_count": 0, "ahead": 0, "behind": 0, "remote": "origin",
            "last_sync": "2026-11-29T09:58:00+00:00", "last_sync_age_s": 120,
            "version": "e3c41d2 bsi: mark stale sess-20261129-0500-notes-wrap"},
    "pm2": {"available": True, "error": None, "processes": [
        {"name": "brain-api", "status": "online", "uptime_s": 93784, "restarts": 0, "cpu": 1.5,
         "memory": 88 * 1024 ** 2, "port": 7700},
        {"name": "brain-mcp", "status": "stopped", "uptime_s": None, "restarts": 3, "cpu": 0,
         "memory": 0, "port": 7701},
    ]},
    "ports": {"listening": [{"port": 22, "address": "0.0.0.0", "pid": 801, "process": "sshd"},
                            {"port": 7700, "address": "127.0.0.1", "pid": 4242, "process": "node"}],
              "configured": [
        {"name": "brain-api", "port": 7700, "up": True, "source": "brain-compose.yml"},
        {"name": "brain-mcp", "port": 7701, "up": False, "source": "brain-compose.yml"},
    ]},
    "system": {"load": {"1m": 0.42, "5m": 0.35, "15m": 0.30, "cpus": 8},
               "memory": {"percent": 41.0}, "disk": {"percent": 63.0, "free": 180 * 1024 ** 3}},
}

Step = Callable[[Any], Awaitable[None]]


async def _select_gate(pilot: Any) -> None:
    table = pilot.app.screen.query_one("#active")
    table.focus()
    table.select_key(GATED)
    await pilot.pause()


async def _gate_screen(pilot: Any) -> None:
    await pilot.press("g", "down")


async def _queue_expiring(pilot: Any) -> None:
    """Twenty minutes later: the gate has 10 minutes left (header, queue row, toast)."""
    pilot.app.brain.clock = lambda: NOW + timedelta(minutes=20)
    pilot.app.tick()
    await pilot.press("g")


async def _approve(pilot: Any) -> None:
    await _select_gate(pilot)
    await pilot.press("a")


async def _gate_diff(pilot: Any) -> None:
    """`a` on the gate, then `d`: the files the satellite changed, its tests, the diff (issue 19)."""
    await _approve(pilot)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("d")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _live_sessions(pilot: Any) -> None:
    """Hook records as a working pilot, a satellite waiting for input and a stale claim's ended session leave."""
    from brain_tui.core.sessions import agents

    root = pilot.app.brain.root
    agents.record_binding(root, "sess-20261129-0800-pilote-be7", "agent-pilot", NOW - timedelta(minutes=30))
    agents.record_activity(root, "sess-20261129-0800-pilote-be7", "agent-pilot", NOW - timedelta(minutes=2),
                           tool="Edit", touched=["brain-engine/api/schema.md"])
    agents.record_state(root, "sess-20261129-0820-api-search", "agent-search", "needs_input",
                        NOW - timedelta(minutes=4))
    agents.record_state(root, "sess-20261129-0500-notes-wrap", "agent-notes", "ended", NOW - timedelta(hours=3))
    pilot.app.readings.load_live_sessions()
    pilot.app.show_snapshot()
    await _select_gate(pilot)


async def _notify_failed(pilot: Any) -> None:
    """A new gate arrives while `notify:` names a command that fails (`false`): the queue and both toasts."""
    from brain_tui.core.brain import Brain
    from brain_tui.core.sessions.notify import parse_notify

    app = pilot.app
    app.notices.notifier.setting = parse_notify({"command": ["false", "BSI: {kind}", "{summary}"]})
    app.refresh_snapshot()
    await app.workers.wait_for_complete()
    Brain(app.brain.root, clock=lambda: NOW, instance=INSTANCE).gates.request(
        "sess-20261129-0800-pilote-be7", "merge the api branch to main?")
    app.refresh_snapshot()
    await app.workers.wait_for_complete()
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.press("g")


def _transcript(root: Path) -> str:
    """A Claude Code transcript beside the brain: three turns growing ~9 000 tokens each, a test run in progress."""
    import json

    def at(minutes: int) -> str:
        return (NOW - timedelta(minutes=minutes)).isoformat()

    def turn(n: int, used: int, minutes: int, content: list[dict[str, Any]]) -> dict[str, Any]:
        return {"type": "assistant", "timestamp": at(minutes), "message": {
            "id": f"msg_{n}", "role": "assistant", "model": "claude-opus-4-8", "content": content,
            "usage": {"input_tokens": 4, "cache_read_input_tokens": used, "output_tokens": 60}}}

    lines = [turn(1, 124_000, 6, [{"type": "text", "text": "Reading the search routes."}]),
             turn(2, 133_000, 4, [{"type": "tool_use", "id": "t1", "name": "Edit",
                                   "input": {"file_path": "brain-engine/api/schema.md"}}]),
             {"type": "user", "timestamp": at(3), "message": {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}},
             turn(3, 142_000, 1, [{"type": "text", "text": "Schema updated; running the API tests next."},
                                  {"type": "tool_use", "id": "t2", "name": "Bash",
                                   "input": {"command": "pytest brain-engine/api"}}])]
    path = root.parent / "pilot-transcript.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


async def _live_runway(pilot: Any) -> None:
    """The pilot's agent with a transcript: its runway in the Agent column."""
    from brain_tui.core.sessions import agents

    root = pilot.app.brain.root
    agents.record_activity(root, "sess-20261129-0800-pilote-be7", "agent-pilot", NOW - timedelta(minutes=1),
                           tool="Bash", transcript=agents.Transcript(_transcript(Path(root)), "claude"))
    pilot.app.readings.load_live_sessions()
    pilot.app.show_snapshot()
    await _select_gate(pilot)


async def _peek(pilot: Any) -> None:
    """The pilot's detail at 80x24: the Peek block."""
    await _live_runway(pilot)
    table = pilot.app.screen.query_one("#active")
    table.select_key("sess-20261129-0800-pilote-be7")
    await pilot.pause()
    await pilot.press("enter")


async def _grouped(pilot: Any) -> None:
    """The claims grouped by their agent's state (G)."""
    await _live_runway(pilot)
    await pilot.press("G")


def _launched_here(root: Path) -> None:
    """The gated claim's agent, launched in tmux from this machine: this process stands for it (alive while the
    shot is taken), so `W` and `E` find it running."""
    import psutil

    from brain_tui.core.sessions.launch import LaunchRecord, write_record

    write_record(root, LaunchRecord(sess_id=GATED, mode="tmux", pid=os.getpid(),
                                    create_time=psutil.Process().create_time(), started_at=NOW.isoformat(),
                                    window="@3", target="bsi-prod:3", name="api-tests", pane="%3"))


async def _answer(pilot: Any) -> None:
    """W on the gated claim: the reply typed for its agent's tmux pane."""
    _launched_here(pilot.app.brain.root)
    await _select_gate(pilot)
    await pilot.press("W")
    await pilot.pause()
    await pilot.press(*[{" ": "space", ",": "comma"}.get(k, k) for k in "yes, go on"])


async def _stop_agent(pilot: Any) -> None:
    """E on the gated claim: the confirmation that names it."""
    _launched_here(pilot.app.brain.root)
    await _select_gate(pilot)
    await pilot.press("E")


def _keys(*keys: str) -> Step:
    async def step(pilot: Any) -> None:
        await pilot.press(*keys)

    return step


#: (file name, terminal size, theme, what to do before the shot).
SHOTS: list[tuple[str, tuple[int, int], str, Step | None]] = [
    ("cockpit-wide.svg", (120, 40), "brain-dark", _select_gate),
    ("cockpit-80x24.svg", (80, 24), "brain-dark", None),
    ("gates.svg", (100, 32), "brain-dark", _gate_screen),
    ("queue-expiring.svg", (120, 40), "brain-dark", _queue_expiring),
    ("queue-80x24.svg", (80, 24), "brain-dark", _keys("g")),
    ("approve.svg", (100, 32), "brain-dark", _approve),
    ("gate-diff-80x24.svg", (80, 24), "brain-dark", _gate_diff),
    ("cockpit-light.svg", (120, 40), "brain-light", _select_gate),
    ("environment-80x24.svg", (80, 24), "brain-dark", _keys("4")),
    ("breath-80x24.svg", (80, 24), "brain-dark", _keys("5")),
    ("lint.svg", (100, 24), "brain-dark", _keys("l")),
    ("live-sessions.svg", (160, 45), "brain-dark", _live_sessions),
    ("live-runway.svg", (160, 45), "brain-dark", _live_runway),
    ("peek-80x24.svg", (80, 24), "brain-dark", _peek),
    ("grouped-80x24.svg", (80, 24), "brain-dark", _grouped),
    ("answer-80x24.svg", (80, 24), "brain-dark", _answer),
    ("stop-agent-80x24.svg", (80, 24), "brain-dark", _stop_agent),
    ("notify-failed.svg", (100, 30), "brain-dark", _notify_failed),  # last: it raises a gate
]
#: The shots that show the cockpit's toasts (`run_test` hides them otherwise).
WITH_TOASTS = frozenset({"notify-failed.svg"})


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


def _give_remote(root: Path, remote: Path) -> None:
    """A local bare remote holding the demo brain, last synced two minutes before NOW."""
    from brain_tui.core.sync import remote_state

    _git("clone", "--bare", "--quiet", str(root), str(remote))
    _git("-C", str(root), "remote", "add", "origin", str(remote))
    _git("-C", str(root), "fetch", "--quiet", "origin")
    remote_state.record(root, (NOW - timedelta(minutes=2)).isoformat(), pending=False)


async def _shoot(root: Path, out: Path, name: str, size: tuple[int, int], theme: str, step: Step | None) -> None:
    from brain_tui.core.brain import Brain
    from brain_tui.core.environment.env import EnvState
    from brain_tui.tui.app import BrainApp

    brain = Brain(root, clock=lambda: NOW, instance=INSTANCE)
    reading = EnvState(**DEMO_ENV)
    app = BrainApp(brain, live=False, theme=theme, remember_theme=False,
                   env_provider=lambda _brain: (reading, ""))
    async with app.run_test(size=size, notifications=name in WITH_TOASTS) as pilot:
        await pilot.pause()
        if step is not None:
            await step(pilot)
        for _ in range(2):
            await pilot.pause()
            await app.workers.wait_for_complete()
        await pilot.pause()
        app.save_screenshot(filename=name, path=str(out))


def main(argv: list[str] | None = None) -> int:
    """Build the demo brain and write every screenshot.

    Returns:
        0.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "screenshots"),
                        help="output folder (default: screenshots/)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from brain_tui.demo import build_demo

    with tempfile.TemporaryDirectory(prefix="brain-tui-shots-") as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "xdg")  # never touch the user's settings
        os.environ.pop("NO_COLOR", None)
        root = build_demo(Path(tmp) / "brain", NOW)
        _give_remote(root, Path(tmp) / "remote.git")
        for name, size, theme, step in SHOTS:
            asyncio.run(_shoot(root, out, name, size, theme, step))
            sys.stderr.write(f"wrote {out / name}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
