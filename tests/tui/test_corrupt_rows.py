"""A claim file that does not read is one row in the cockpit: its path, line and reason (SPEC 13).

It fails closed (it blocks what it may hold, the whole brain when nothing can be read), so the pilot
needs to see which file it is and how to repair it, not only a count in the header.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.corrupt import corrupt_line
from brain_tui.tui.screens.detail import DetailScreen

from .conftest import screen_text, settle

pytestmark = pytest.mark.anyio

BAD = "sess-20261129-0901-broken"


def write_corrupt(root: Path) -> None:
    """A claim file with a duplicate key whose text is hostile markup."""
    (root / "claims" / f"{BAD}.yml").write_text(
        f"sess_id: {BAD}\n'[@click=app.quit]k[/]': 1\n'[@click=app.quit]k[/]': 2\n", encoding="utf-8")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_corrupt_claim_file_is_a_row_with_its_path_line_and_reason(  # noqa: ANN001
        make_app, demo_root: Path, size: tuple[int, int]) -> None:
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#stale")
        keys = [key for key in table.row_keys if key.startswith("corrupt:")]
        assert keys == [f"corrupt:claims/{BAD}.yml"]
        assert table.select_key(keys[0])
        table.focus()
        await settle(pilot)
        line = corrupt_line(app.snapshot, keys[0])
        assert line is not None
        assert line.plain == (f"✗ 0901-broken · line 3: duplicate key '[@click=app.quit]k[/]' · bsi claim repair {BAD}"
                              f" · until repaired it holds * · claims/{BAD}.yml")
        text = screen_text(app)
        assert "✗ 0901-broken · line 3: duplicate key" in text  # the selection line
        if size[0] >= 120:
            assert f"duplicate key '[@click=app.quit]k[/]' · bsi claim repair {BAD}" in text  # inert
        for key in ("enter", "R", "X", "c", "r"):  # no claim to act on: refused, never a traceback
            await pilot.press(key)
            await settle(pilot)
            assert not isinstance(app.screen, DetailScreen)
            await pilot.press("escape")
        assert app.is_running


async def test_enter_on_a_corrupt_row_names_the_file_and_its_repair(make_app, demo_root: Path) -> None:  # noqa: ANN001
    # The row is selected and the selection bar shows it: "nothing selected" contradicted the screen.
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#stale")
        assert table.select_key(f"corrupt:claims/{BAD}.yml")
        table.focus()
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        told = [n.message for n in app._notifications]
        assert any("does not read" in str(m) and f"bsi claim repair {BAD}" in str(m) for m in told), told
        assert not any("nothing selected" in str(m) for m in told), told


@pytest.mark.parametrize("key", ["R", "X", "p", "c", "a"])
async def test_an_action_key_on_a_corrupt_row_names_the_file_and_its_repair(  # noqa: ANN001
        make_app, demo_root: Path, key: str) -> None:
    # The row is selected: "select a claim first" contradicted the screen, as "nothing selected" did for enter.
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#stale")
        assert table.select_key(f"corrupt:claims/{BAD}.yml")
        table.focus()
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        told = [str(n.message) for n in app._notifications]
        assert any("does not read" in m and f"bsi claim repair {BAD}" in m for m in told), told
        assert not any("select a claim first" in m for m in told), told


async def test_a_corrupt_claim_file_waits_in_the_queue_and_n_goes_to_its_row(make_app, demo_root: Path) -> None:  # noqa: ANN001
    from brain_tui.tui.screens.queue import QueueScreen

    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        items = [item for item in app.queue if item.kind == "unreadable"]
        assert [item.path for item in items] == [f"claims/{BAD}.yml"]
        for _ in range(len(app.queue)):  # `n` walks the queue: one stop is the file's row among the stale claims
            await pilot.press("n")
            await settle(pilot)
            if app.screen.current_item_key() == items[0].key or app.screen.query_one("#stale").selected_key == (
                    f"corrupt:claims/{BAD}.yml"):
                break
        assert app.screen.query_one("#stale").selected_key == f"corrupt:claims/{BAD}.yml"
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        assert app.screen.query_one("#gate-table").select_key(items[0].key)
        await settle(pilot)
        text = screen_text(app)
        assert f"bsi claim repair {BAD}" in text and "unreadable" in text
        assert "\x1b" not in text


def _footer_actions(app) -> set[str]:  # noqa: ANN001
    from textual.widgets._footer import FooterKey

    return {key.action for key in app.screen.query(FooterKey) if not key.has_class("-command-palette")}


async def test_the_footer_offers_no_claim_key_on_a_corrupt_row(make_app, demo_root: Path) -> None:  # noqa: ANN001
    # On the row of a file that does not read, c/a/x only say the file and its repair: the footer offered them as
    # if they closed, approved or rejected something. It offers what the keys do there, by the check they use.
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#stale")
        table.focus()
        assert table.select_key(f"corrupt:claims/{BAD}.yml")
        await settle(pilot)
        shown = _footer_actions(app)
        assert not shown & {"close_claim", "approve", "reject", "ack"}, shown
        assert {"open_claim", "next_item", "gates", "help"} <= shown, shown
        assert table.select_key("sess-20261129-0500-notes-wrap")  # a stale claim: its keys come back
        await settle(pilot)
        assert {"close_claim", "approve", "reject"} <= _footer_actions(app)


async def test_n_names_a_corrupt_file_as_its_row_does_not_by_its_whole_path(  # noqa: ANN001
        make_app, demo_root: Path) -> None:
    # The toast of `n` showed "claims/sess-20261129-0901-broken.yml", which wraps at 80 columns.
    write_corrupt(demo_root)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(len(app.queue)):
            await pilot.press("n")
            await settle(pilot)
        told = [str(n.message) for n in app._notifications]
        mine = [m for m in told if "unreadable" in m]
        assert mine and all(m.endswith("· 0901-broken") and "claims/" not in m for m in mine), told


async def test_a_lock_file_that_does_not_read_is_named_by_the_file_it_may_lock(  # noqa: ANN001
        make_app, demo_root: Path) -> None:
    # Its name is that path percent-encoded: shown as a claim file's name is, it read "locks/notes%252Fa.md.yml",
    # a file that does not exist. The row names what it locks; the selection line ends with the real path.
    (demo_root / "locks" / "notes%2Fa.md.yml").write_text("file: [notes/a.md\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        line = corrupt_line(app.snapshot, "corrupt:locks/notes%2Fa.md.yml")
        assert line is not None
        assert line.plain.startswith("✗ lock notes/a.md · line 2: ") and "%25" not in line.plain, line.plain
        assert line.plain.endswith("fix or remove it by hand · locks/notes%2Fa.md.yml"), line.plain
        assert "lock notes/a.md" in screen_text(app)
