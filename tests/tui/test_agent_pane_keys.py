"""`W` writes to a launched agent, `I` interrupts it, `E` stops it — from the cockpit at 80x24 (issue 21).

The agent is tests/tmux.py's raw recorder (every byte its terminal reads, in a file); tmux is a
private server (`private_tmux`), killed afterwards. Interrupt and stop ask first, naming the claim.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from textual.widgets import Button

from brain_tui.tui.screens.agent_pane import AnswerDialog, PaneConfirmDialog
from tests.tmux import RAW_RECORDER, needs_tmux, pane_read, windows

from .conftest import DEPLOY, fresh, screen_text, select, settle

pytestmark = [pytest.mark.anyio, needs_tmux]
REPLY = "-y; $(touch PWNED) `id` #{pane_pid} [red]x[/] ;"


def launch(root: Path, tmp_path: Path) -> tuple[Path, str]:
    """DEPLOY's agent (the raw recorder) running in a tmux window of the private server."""
    script = tmp_path / "raw.py"
    script.write_text(RAW_RECORDER, encoding="utf-8")
    out = tmp_path / "pane.bin"
    (root / "brain-compose.yml").write_text(json.dumps(
        {"launch": {"command": [sys.executable, str(script), str(out)]}}), encoding="utf-8")
    record = fresh(root).launches.start(DEPLOY, tmux=True)
    pane_read(out, b"READY")
    return out, record.window


async def test_W_types_the_reply_verbatim_I_and_E_ask_first_naming_the_claim(  # noqa: N802
        make_app, demo_root: Path, tmp_path: Path, private_tmux: Path) -> None:  # noqa: ANN001
    out, window = launch(demo_root, tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("W")
        await settle(pilot)
        assert isinstance(app.screen, AnswerDialog) and DEPLOY in screen_text(app)
        for key in REPLY:
            await pilot.press(key if key.isalnum() else {" ": "space"}.get(key, key))
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, AnswerDialog)
        assert pane_read(out, b"\r") == b"READY" + REPLY.encode() + b"\r"

        await pilot.press("I")
        await settle(pilot)
        assert isinstance(app.screen, PaneConfirmDialog)
        assert DEPLOY in screen_text(app) and "Escape" in screen_text(app)
        await pilot.press("enter")  # the focus starts on Cancel: nothing is sent
        await settle(pilot)
        assert not isinstance(app.screen, PaneConfirmDialog)
        # tmux keeps the keys' order: an Escape the Cancel had sent would arrive before this MARK
        fresh(demo_root).launches.answer(DEPLOY, "MARK")
        assert pane_read(out, b"MARK\r") == b"READY" + REPLY.encode() + b"\rMARK\r"
        await pilot.press("I")
        await settle(pilot)
        app.screen.query_one("#submit", Button).press()
        await settle(pilot)
        assert pane_read(out, b"\x1b").endswith(b"\r\x1b")

        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, PaneConfirmDialog)
        text = screen_text(app)
        assert DEPLOY in text and "claim stays" in text
        app.screen.query_one("#submit", Button).press()
        await settle(pilot)
        assert not isinstance(app.screen, PaneConfirmDialog)
    assert window not in windows()
    assert not list(tmp_path.rglob("PWNED")) and not list(demo_root.rglob("PWNED"))
    claim = fresh(demo_root).snapshot().claim(DEPLOY)
    assert claim is not None and claim.status == "open"


@pytest.mark.parametrize("key", ["A", "W", "I", "E"])
async def test_without_a_launched_agent_the_key_says_so_at_once_and_how_to_get_one(  # noqa: ANN001
        make_app, demo_root: Path, key: str) -> None:
    # Before, W/I/E opened their dialog and the pilot typed a reply (or confirmed) before learning nothing runs;
    # `A` (attach) said only "no launched agent … runs on this machine", where the others added what to do.
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press(key)
        await settle(pilot)
        assert not isinstance(app.screen, (AnswerDialog, PaneConfirmDialog))
        told = [n.message for n in app._notifications]
        assert any("no launched agent" in m and DEPLOY in m and "L launches one" in m for m in told), told
