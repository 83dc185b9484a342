"""A claim whose status the product does not know blocks its scope (core) and so shows as active.

The core keeps an unknown status as written, counts the claim as blocking and flags it
``status-unknown``; `bsi claim list` lists it. The cockpit shows it among the active claims with its
status written out (inert), so the pilot sees what holds the scope and can act on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import SEARCH, fresh, screen_text, select, settle

pytestmark = pytest.mark.anyio

HOSTILE_STATUS = "[@click=app.quit]hold[/]\u202e\x1b[2J"


def set_status(root: Path, sess_id: str, status: str) -> None:
    """Rewrite the claim file's status line, as another writer would (no commit)."""
    path = root / "claims" / f"{sess_id}.yml"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines = [f"status: {json.dumps(status)}" if line.startswith("status:") else line for line in lines]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


async def test_a_claim_with_an_unknown_status_is_listed_as_active(make_app, demo_root: Path) -> None:  # noqa: ANN001
    set_status(demo_root, SEARCH, HOSTILE_STATUS)
    claim = fresh(demo_root).snapshot().claim(SEARCH)
    assert claim is not None and claim.is_blocking and "status-unknown" in claim.flags  # the core's reading
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert SEARCH in app.screen.query_one("#active").row_keys
        text = screen_text(app)
        assert "?  0820-api-search" in text and "[status [@click=app.quit]hold[/]" in text  # written out, inert
        assert "\x1b" not in text and "\u202e" not in text  # the ESC and the bidi override shown as placeholders
        await select(pilot, "#active", SEARCH)
        assert "[@click=app.quit]hold[/]⟨U+202E⟩⟨ESC⟩[2J" in screen_text(app)  # the selection line
        assert app.is_running
