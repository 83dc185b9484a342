"""The open and close forms as a pilot types into them: bursts of keys, small terminals, no silent defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Button, Input

from brain_tui.core.errors import BsiError
from brain_tui.tui.screens.claim_form import OpenClaimScreen
from brain_tui.tui.screens.close_form import CloseClaimScreen

from .conftest import DEPLOY, DOMAIN, PILOT, SEARCH, select, settle, status

pytestmark = pytest.mark.anyio


async def burst(pilot: Any, keys: str) -> None:
    """Send keys the way a fast typist or an SSH connection delivers them: all at once, no pause between."""
    app = pilot.app
    names = {"\t": ("tab", None)}
    for ch in keys:
        key, char = names.get(ch, (ch, ch))
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)
    await settle(pilot)


def visible(app: Any, widget: Any) -> bool:
    """True when the widget is laid out inside the screen."""
    region = widget.region
    return widget.display and region.height > 0 and app.screen.region.contains_region(region)


async def test_close_form_burst_lands_each_count_in_its_field(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("c")
        assert isinstance(app.screen, CloseClaimScreen)
        await burst(pilot, "12\t12\t0")
        values = [app.screen.query_one(f"#{name}", Input).value for name in ("tests-total", "tests-passed",
                                                                              "tests-failed")]
        assert values == ["12", "12", "0"]


async def test_close_form_checks_the_counts_add_up_before_asking_the_core(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("c")
        for name, value in (("tests-total", "12"), ("tests-passed", "10"), ("tests-failed", "1")):
            app.screen.query_one(f"#{name}", Input).value = value
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, CloseClaimScreen)  # still open, nothing sent to the core
        error = str(app.screen.query_one("#error").render())
        assert "10 passed + 1 failed is not the 12 total" in error
    assert status(demo_root, SEARCH) == "open"


async def test_open_form_at_80x24_keeps_preview_refusal_and_buttons_on_screen(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("o")
        assert isinstance(app.screen, OpenClaimScreen)
        await pilot.press("b", "r", "a", "i", "n", "-", "e", "n", "g", "i", "n", "e", "/")  # meets 3+ claims
        await pilot.press("ctrl+s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, OpenClaimScreen)
        assert "conflict" in str(screen.query_one("#preview").render())
        assert visible(app, screen.query_one("#submit", Button)) and visible(app, screen.query_one("#cancel"))
        error = screen.query_one("#error")
        assert "conflict" in str(error.render()).lower() and visible(app, error)


async def test_open_form_never_fills_the_parent_silently(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", PILOT)
        await pilot.press("o")
        screen = app.screen
        assert screen.query_one("#parent", Input).value == ""  # offered, not filled
        assert "ctrl+r" in str(screen.query_one("#parent-help").render())
        await pilot.press("w", "i", "k", "i", "/")
        screen.query_one("#slug", Input).value = "glossary-three"
        await pilot.press("ctrl+s")
        await settle(pilot)
    opened = [c for c in app.snapshot.claims if c.sess_id.endswith("-glossary-three")]
    assert len(opened) == 1 and opened[0].parent is None  # a standalone claim, with the slug asked for


async def test_open_form_parent_on_request(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", PILOT)
        await pilot.press("o")
        await pilot.press("ctrl+r")
        assert app.screen.query_one("#parent", Input).value == PILOT


async def test_open_preview_reads_no_file_per_keystroke(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("o")

        def no_disk(*_args: Any, **_kwargs: Any) -> None:
            raise AssertionError("the preview must use the snapshot in memory")

        app.brain.store.snapshot = no_disk  # type: ignore[method-assign]
        await pilot.press("w", "i", "k", "i", "/")
        assert "no conflict" in str(app.screen.query_one("#preview").render())


async def test_open_form_takes_a_name_holding_a_space_whole(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """The form reads its scope as `--scope` does: an existing file whose name holds a space is one entry."""
    (demo_root / "wiki").mkdir(exist_ok=True)
    (demo_root / "wiki" / "Meeting notes.md").write_text("# Notes\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("o")
        app.screen.query_one("#scope", Input).value = "wiki/Meeting notes.md"
        app.screen.query_one("#slug", Input).value = "meeting"
        await pilot.press("ctrl+s")
        await settle(pilot)
    opened = [c for c in app.snapshot.claims if c.sess_id.endswith("-meeting")]
    assert len(opened) == 1 and [str(e) for e in opened[0].scope] == ["wiki/Meeting notes.md"]


@pytest.mark.parametrize("control", ["\x1c", "\x1f", "\x85"], ids=lambda c: f"U+{ord(c):04X}")
async def test_open_form_refuses_a_control_character_python_calls_a_space(make_app, control: str) -> None:  # noqa: ANN001
    """`bsi claim open --scope 'wiki/<US>'` is refused (SPEC 5.1: control characters, 65); the form trimmed the scope
    with str.strip, which takes U+001C-U+001F and NEL for spaces, and opened a claim on `wiki/`. The ASCII spaces
    around a scope are still trimmed."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("o")
        screen = app.screen
        assert isinstance(screen, OpenClaimScreen)
        for text in (f"wiki/{control}", f"{control}wiki/"):
            screen.query_one("#scope", Input).value = text
            with pytest.raises(BsiError, match="control characters"):
                screen.build_request()
        screen.query_one("#scope", Input).value = " wiki/\t"
        assert [str(e) for e in screen.build_request().scope] == ["wiki/"]


async def test_open_refused_by_a_pilot_offers_it_as_the_parent(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """A conflict with a claim that may take this one as its child offers it (ctrl+r), whatever row was selected."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", DEPLOY)  # a leaf: nothing is offered when the form opens
        await pilot.press("o")
        screen = app.screen
        assert "ctrl+r" not in str(screen.query_one("#parent-help").render())
        screen.query_one("#scope", Input).value = "brain-engine/server.py"  # held by the pilot alone
        screen.query_one("#slug", Input).value = "server"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "ctrl+r" in str(screen.query_one("#error").render())
        assert "ctrl+r" in str(screen.query_one("#parent-help").render())
        await pilot.press("ctrl+r")
        assert screen.query_one("#parent", Input).value == PILOT
        await pilot.press("ctrl+s")
        await settle(pilot)
    opened = [c for c in app.snapshot.claims if c.sess_id.endswith("-server")]
    assert len(opened) == 1 and opened[0].parent == PILOT


async def test_open_refused_by_a_domain_offers_the_domain_not_the_pilot(make_app) -> None:  # noqa: ANN001
    """Under the pilot the domain would still conflict: the holder offered is the one the core accepts."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", DEPLOY)
        await pilot.press("o")
        app.screen.query_one("#scope", Input).value = "brain-engine/api/util.py"  # the pilot's and the domain's
        await settle(pilot)
        await pilot.press("ctrl+r")
        assert app.screen.query_one("#parent", Input).value == DOMAIN


async def test_renew_form_at_80x24_is_as_tall_as_its_content(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", SEARCH)
        await pilot.press("r")
        await settle(pilot)
        box = app.screen.query_one("#dialog-box")
        content = sum(child.outer_size.height + child.styles.margin.height for child in box.children if child.display)
        assert box.outer_size.height == content + 2, (box.outer_size.height, content)  # its border, no blank rows
        assert visible(app, app.screen.query_one("#submit", Button))
