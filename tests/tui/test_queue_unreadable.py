"""Claim files that do not read, as items of the attention queue (`g`) and of `n`.

Each is its own row of the queue, told apart by its claim's name as the stale pane shows it; the keys on it name
the file and its repair (the row is selected: "select a claim first" contradicted the screen); the footer offers
no approve / reject where no claim stands; `n` walks past each such file to the next item, with the keys on its row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets._footer import FooterKey

from brain_tui.tui.screens.queue import QueueScreen

from .conftest import screen_text, settle

pytestmark = pytest.mark.anyio

LONG = "sess-20261129-0900-an-extremely-long-slug-for-a-broken-claim-file-written-by-hand"
EVIL = "sess-20261129-0901-evil"


def write_corrupt(root: Path) -> None:
    """Two claim files with a duplicate key: one with a long name, one whose key is hostile text."""
    (root / "claims" / f"{LONG}.yml").write_text(f"sess_id: {LONG}\nscope: [docs/]\n'k': 1\n'k': 2\n",
                                                 encoding="utf-8")
    (root / "claims" / f"{EVIL}.yml").write_text(
        f"sess_id: {EVIL}\n'[@click=app.quit]k[/]': 1\n'[@click=app.quit]k[/]': 2\n", encoding="utf-8")


async def open_queue_on(pilot: Any, path: str) -> QueueScreen:
    """`g`, and the cursor on the item of the file `path`."""
    await pilot.press("g")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, QueueScreen)
    table = screen.query_one("#gate-table")
    assert table.select_key(f"unreadable:{path}")
    await settle(pilot)
    return screen


async def test_each_unreadable_file_is_told_apart_in_the_queue(make_app, demo_root: Path) -> None:  # noqa: ANN001
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        text = screen_text(app)
        assert "0901-evil" in text and "0900-an-extreme" in text, text  # not "claims/sess-20261…" twice


#: The keys that act on a claim: on the row of a file that does not read, each names the file and its repair.
ACTION_KEYS = ("enter", "X", "R", "a", "x")


async def test_a_key_on_an_unreadable_item_names_the_file_and_its_repair(  # noqa: ANN001
        make_app, demo_root: Path) -> None:
    """One cockpit serves every key: each key is pressed on the row with the toasts cleared, and must leave the
    queue in front (no dialog, no detail) and say the repair itself — a toast of an earlier key cannot answer."""
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_queue_on(pilot, f"claims/{EVIL}.yml")
        for key in ACTION_KEYS:
            app.clear_notifications()
            assert screen.query_one("#gate-table").select_key(f"unreadable:claims/{EVIL}.yml")
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is screen, key  # no dialog, no detail of another claim
            told = [str(n.message) for n in app._notifications]
            assert any("does not read" in m and f"bsi claim repair {EVIL}" in m for m in told), (key, told)
            assert not any("select a claim first" in m or "nothing selected" in m for m in told), (key, told)


async def test_the_footer_offers_no_decision_on_an_unreadable_item(make_app, demo_root: Path) -> None:  # noqa: ANN001
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_queue_on(pilot, f"claims/{EVIL}.yml")
        shown = {key.action for key in app.screen.query(FooterKey)}
        assert not shown & {"approve", "reject"}, shown


async def test_n_walks_past_each_unreadable_file(make_app, demo_root: Path) -> None:  # noqa: ANN001
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        total = len(app.queue)
        seen = []
        for _ in range(total):
            await pilot.press("n")
            await settle(pilot)
            seen.append(app.screen.current_item_key())
        assert seen == [item.key for item in app.queue], seen  # each once, in order: never stuck on one
        corrupt = [key for key in seen if key.startswith("unreadable:claims/")]
        assert len(corrupt) == 2, seen


async def test_the_queue_gives_a_corrupt_file_the_stale_panes_icon(make_app, demo_root: Path) -> None:  # noqa: ANN001
    # One icon for one meaning: the stale pane marks a file that does not read ✗; the queue marked it ● (a warning).
    from brain_tui.tui.corrupt import corrupt_rows
    from brain_tui.tui.screens.queue import queue_rows

    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        stale = dict(corrupt_rows(app.snapshot))[f"corrupt:claims/{EVIL}.yml"]["status"]
        queued = dict(queue_rows(app.snapshot, app.queue))[f"unreadable:claims/{EVIL}.yml"]["icon"]
        assert (queued.plain, queued.spans) == (stale.plain, stale.spans)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_queue_row_of_a_corrupt_file_says_it_does_not_read_and_why(  # noqa: ANN001
        make_app, demo_root: Path, size: tuple[int, int]) -> None:
    # What cut the summary after "does not read: bs…": the repair command's first letters, not the file nor why.
    # The row names the file (Who), What says it does not read and the reason's head; the panel has the whole text.
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await open_queue_on(pilot, f"claims/{LONG}.yml")
        row = next(line for line in screen_text(app).splitlines() if "0900-an-extreme" in line)
        assert "does not read · l" in row and "bs…" not in row, row
        text = screen_text(app)
        assert "see What" not in text and "does not read: bsi claim repair" in text  # the panel says it all
        if size[0] >= 120:
            assert "does not read · line 4: duplicate k" in row, row  # the reason's tail gives way


LOCK = "locks/notes%2Fa.md.yml"
LOCK_DIR = "locks/docs%2Fb.md.yml"
SIGNAL = "signals/sig-20261129-101502-k3f9.yml"


def write_corrupt_lock_and_signal(root: Path) -> None:
    """A lock file that does not parse, a folder named like a lock file and a signal file that does not parse."""
    (root / LOCK).write_text("file: [notes/a.md\n", encoding="utf-8")
    (root / LOCK_DIR).mkdir()
    (root / SIGNAL).write_text("sig_id: [x\n", encoding="utf-8")


@pytest.mark.parametrize("path", [LOCK, LOCK_DIR, SIGNAL])
async def test_a_key_on_a_lock_or_signal_file_that_does_not_read_names_its_own_repair(  # noqa: ANN001
        make_app, demo_root: Path, path: str) -> None:
    """Its row is in the queue; a claim key on it acts on no claim and says the file's repair: fixed or removed by
    hand (no `bsi claim repair`, which mends claim files only)."""
    write_corrupt_lock_and_signal(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_queue_on(pilot, path)
        assert not {key.action for key in app.screen.query(FooterKey)} & {"approve", "reject", "ack"}
        assert "fix or remove it by hand" in screen_text(app)
        for key in (*ACTION_KEYS, "K"):
            app.clear_notifications()
            assert screen.query_one("#gate-table").select_key(f"unreadable:{path}")
            await settle(pilot)
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is screen, key
            told = [str(n.message) for n in app._notifications]
            assert any("does not read" in m and "fix or remove it by hand" in m and path in m for m in told), (
                key, told)
            assert not any("bsi claim repair" in m or "select a claim first" in m for m in told), (key, told)
        assert app.is_running
