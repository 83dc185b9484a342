"""The cockpit tells a pilot who is away (issue 19): a new gate runs `notify:` once and writes desktop escapes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import PILOT, fresh, settle

pytestmark = pytest.mark.anyio

#: A stand-in for notify-send: appends its arguments, one JSON line a run, to the file named first.
RECORDER = "import json, sys; open(sys.argv[1], 'a').write(json.dumps(sys.argv[2:]) + chr(10))"


def configure(root: Path, out: Path, program: str = sys.executable) -> None:
    """Give the demo brain a `notify:` command that records what it was given."""
    command = [program, "-c", RECORDER, str(out), "BSI: {kind}", "{summary}", "{sess_id}"]
    with (root / "brain-compose.yml").open("a", encoding="utf-8") as handle:
        handle.write("\nnotify:\n  command: " + json.dumps(command) + "\n")


def capture(app: Any) -> list[str]:
    """What the cockpit writes to the terminal through its driver."""
    written: list[str] = []
    app._driver.write = written.append
    return written


def runs(out: Path) -> list[list[str]]:
    """The recorded runs of the notify command."""
    return [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


async def test_a_new_gate_runs_the_command_once_and_writes_the_escapes(make_app, demo_root: Path,
                                                                       tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "notified"
    configure(demo_root, out)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        written = capture(app)
        app.refresh_snapshot()
        await settle(pilot)
        assert runs(out) == [] and written == []  # the items already there when it opened: not told
        fresh(demo_root).gates.request(PILOT, "merge to main?\x1b]0;owned\x07; now")
        app.refresh_snapshot()
        await settle(pilot)
        told = runs(out)
        assert len(told) == 1
        kind, summary, sess = told[0]
        assert kind == "BSI: gate" and sess == PILOT
        assert "merge to main?" in summary and "\x1b" not in summary and "⟨ESC⟩" in summary
        notice = "".join(written)
        assert "\x1b]9;BSI: gate: " in notice and "\x1b]777;notify;BSI: gate;" in notice
        assert "\x1b]99;;BSI: gate: " in notice and "owned" in notice
        assert "\x1b]0;" not in notice and "\x07; now" not in notice  # the gate's own escape stays text
        app.refresh_snapshot()
        await settle(pilot)
        assert len(runs(out)) == 1  # once per item
    again = make_app()  # a cockpit opened later does not tell it again
    async with again.run_test(size=(80, 24)) as pilot:
        capture(again)
        again.refresh_snapshot()
        await settle(pilot)
    assert len(runs(out)) == 1


async def test_no_bell_turns_off_escapes_and_command(make_app, demo_root: Path, tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "notified"
    configure(demo_root, out)
    app = make_app(bell=False)
    async with app.run_test(size=(80, 24)) as pilot:
        written = capture(app)
        app.refresh_snapshot()
        fresh(demo_root).gates.request(PILOT, "merge to main?")
        app.refresh_snapshot()
        await settle(pilot)
        assert runs(out) == [] and written == []


async def test_a_failing_command_is_told_once_as_a_toast(make_app, demo_root: Path, tmp_path: Path) -> None:  # noqa: ANN001
    configure(demo_root, tmp_path / "unused", program=str(tmp_path / "no-such-notifier"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        written = capture(app)
        app.refresh_snapshot()
        fresh(demo_root).gates.request(PILOT, "merge to main?")
        app.refresh_snapshot()
        await settle(pilot)
        fresh(demo_root).signals.send("sess-20261129-0820-api-search", PILOT, "BLOCKED_ON", "need the schema")
        app.refresh_snapshot()
        await settle(pilot)
        toasts = [n for n in app._notifications if n.title == "notify"]
        assert len(toasts) == 1 and "not found" in toasts[0].message
        assert "".join(written).count("\x1b]9;") == 2  # the escapes still go out, one notice per new item


async def test_a_shell_string_is_refused_once_at_start(make_app, demo_root: Path, tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "ran"
    with (demo_root / "brain-compose.yml").open("a", encoding="utf-8") as handle:
        handle.write(f"\nnotify:\n  command: 'touch {out}'\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        written = capture(app)
        app.refresh_snapshot()
        fresh(demo_root).gates.request(PILOT, "merge to main?")
        app.refresh_snapshot()
        await settle(pilot)
        toasts = [n for n in app._notifications if n.title == "notify"]
        assert len(toasts) == 1 and "argv list" in toasts[0].message
        assert not out.exists() and "\x1b]9;BSI: gate" in "".join(written)  # no command; the notice still goes


async def test_the_log_is_written_off_the_ui_thread_and_the_palette_names_the_notices(
        make_app, demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    import threading

    from brain_tui.core.sessions import notify

    configure(demo_root, tmp_path / "notified")
    writers: list[str] = []
    real_write = notify.atomic_write_text

    def recording(path: Path, text: str) -> None:
        writers.append(threading.current_thread().name)
        real_write(path, text)

    monkeypatch.setattr(notify, "atomic_write_text", recording)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = threading.current_thread().name
        capture(app)
        fresh(demo_root).gates.request(PILOT, "merge to main?")
        app.refresh_snapshot()
        await settle(pilot)
        assert len(writers) >= 2 and main not in writers, writers  # the start and the new gate
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Bell and notices: turn off" in titles
