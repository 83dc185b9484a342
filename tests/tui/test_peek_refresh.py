"""The detail's Peek block is read again while the detail stays open (issue 21), in a worker thread."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import PILOT, screen_text, settle
from .test_live_peek import _open_detail, bind_transcript

pytestmark = pytest.mark.anyio


async def test_the_peek_follows_the_transcript_while_the_detail_is_open(make_app, demo_root: Path) -> None:  # noqa: ANN001
    copy = bind_transcript(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _open_detail(pilot, PILOT)
        assert "Done." in str(screen.query_one("#peek").render())
        line = {"type": "assistant", "timestamp": "2026-11-29T09:59:00Z",
                "message": {"role": "assistant", "id": "msg_new", "model": "claude-opus-4-8",
                            "content": [{"type": "text", "text": "Moving on to the search index."}]}}
        with copy.open("a") as handle:
            handle.write(json.dumps(line) + "\n")
        screen.refresh_peek()  # what the detail's 5-second timer calls in a live cockpit
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        text = str(screen.query_one("#peek").render())
        assert "Moving on to the search index." in text and "Done." not in text
        assert "Moving on" in screen_text(app)
