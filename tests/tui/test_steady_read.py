"""The cockpit holds the live claims and a recent window, not the whole history (issue 18)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.records.model import TERMINAL_STATUSES
from brain_tui.core.rules.attention import complete_for
from brain_tui.tui.widgets.history import PAGE_SIZE

from ..unit.test_closed_window import claim_text
from .conftest import NOW, fresh, settle

pytestmark = pytest.mark.anyio

OLD = 80
OLD_PARENT = "sess-20251001-0900-old-parent"
LIVE_CHILD = "sess-20261129-0955-late-child"
OLD_SENDER = "sess-20251101-0001-old1"


def add_old_history(root: Path) -> None:
    """`OLD` claims finished a year ago, and a parent finished then whose satellite still works."""
    claims = root / "claims"
    for n in range(OLD):
        sess_id = f"sess-20251101-{n // 60:02d}{n % 60:02d}-old{n}"
        (claims / f"{sess_id}.yml").write_text(claim_text(sess_id, "closed", NOW - timedelta(days=365)))
    (claims / f"{OLD_PARENT}.yml").write_text(claim_text(OLD_PARENT, "closed", NOW - timedelta(days=300)))
    (claims / f"{LIVE_CHILD}.yml").write_text(claim_text(LIVE_CHILD, "open", parent=OLD_PARENT))
    (root / "signals" / "sig-20261129-0958-old-sender.yml").write_text(
        f"sig_id: sig-20261129-0958-old-sender\nfrom: {OLD_SENDER}\nto: {LIVE_CHILD}\ntype: INFO\n"
        "payload: still pending\nstate: pending\ncreated_at: '2026-11-29T09:58:00+00:00'\n")



async def test_the_steady_read_builds_no_claim_finished_before_the_window(  # noqa: ANN001
        make_app, demo_root: Path, built: list[str]) -> None:
    add_old_history(demo_root)
    finished = [c for c in fresh(demo_root).snapshot().claims if c.status in TERMINAL_STATUSES]
    built.clear()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.refresh_snapshot()
        await settle(pilot)
        old = {rel for rel in built if "-old" in rel}
        # Only the live satellite's parent and a pending signal's sender: the claims the screens name.
        assert old == {f"claims/{OLD_PARENT}.yml", f"claims/{OLD_SENDER}.yml"}
        assert app.snapshot.claim(OLD_PARENT) is not None and app.snapshot.claim(LIVE_CHILD) is not None
        assert app.snapshot.claim("sess-20251101-0000-old0") is None
        assert complete_for(app.snapshot)  # the attention queue reads as on the whole brain
        built.clear()
        await pilot.press("7")  # the history pane: one page read, the total from the names
        await settle(pilot)
        table = app.screen.query_one("#history")
        assert table.total == len(finished)
        assert len(table.row_keys) == min(PAGE_SIZE, len(finished))
        assert len(built) <= PAGE_SIZE


def test_a_history_page_lists_the_latest_ended_first(demo_root: Path) -> None:
    from dataclasses import replace

    from brain_tui.tui.widgets.history import history_rows

    brain = fresh(demo_root)
    page = list(brain.audit.history_page(0, PAGE_SIZE).claims)
    assert len(page) >= 2
    # The page comes in file-name (opening) order; the claim opened first ended last.
    first_opened = min(page, key=lambda c: c.sess_id)
    late = replace(first_opened, closed_at=NOW - timedelta(minutes=1))
    others = [replace(c, closed_at=NOW - timedelta(days=2)) for c in page if c is not first_opened]
    keys = [key for key, _ in history_rows([*others, late], NOW, brain.tz)]
    assert keys[0] == first_opened.sess_id
    assert keys[1:] == [c.sess_id for c in others]  # equal end times keep the page's order


async def test_the_palette_finds_a_finished_claim_the_steady_read_does_not_hold(  # noqa: ANN001
        make_app, demo_root: Path) -> None:
    from brain_tui.tui.palette import BrainProvider

    add_old_history(demo_root)
    wanted = "sess-20251101-0017-old17"
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.snapshot.claim(wanted) is None
        hits = [hit async for hit in BrainProvider(app.screen).search("old17")]
        chosen = [hit for hit in hits if wanted in str(hit.help)]
        assert len(chosen) == 1 and "(history)" in str(chosen[0].text)
        chosen[0].command()
        await settle(pilot)
        assert app.screen.query_one("#history").selected_key == wanted
