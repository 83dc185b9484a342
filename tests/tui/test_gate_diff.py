"""The gate diff (issue 19): `d` in the approve dialog and on the gate screen shows what is being approved."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import ScrollableContainer

from brain_tui.tui.screens.confirm import GateDecisionDialog
from brain_tui.tui.screens.gate_diff import GateDiffScreen

from .conftest import GATED, screen_text, select, settle, status

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_d_in_the_approve_dialog_shows_the_diff_and_toggles_back(make_app, demo_root: Path,  # noqa: ANN001
                                                                        size: tuple[int, int]) -> None:
    (demo_root / "brain-engine" / "tests" / "evil.py").write_text("x = '\x1b[2J[bold]boom[/bold]'\n")
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, GateDiffScreen)
        text = screen_text(app)
        assert "test_pagination.py" in text and "tests total 24" in text
        assert "[bold]boom[/bold]" in "".join(app.screen.review.diff.split("\x1b[2J"))
        assert "\x1b" not in text
        scroller = app.screen.query_one("#gate-diff", ScrollableContainer)
        assert scroller.virtual_size.height > scroller.size.height  # the diff scrolls inside the screen
        before = scroller.scroll_y
        await pilot.press("pagedown")
        await settle(pilot)
        assert scroller.scroll_y > before
        assert max(len(line) for line in text.splitlines()) <= size[0]
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog)
        await pilot.press("enter")
        await settle(pilot)
    assert status(demo_root, GATED) == "closed"


async def test_approve_refused_when_the_scope_moved_after_the_review(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog) and app.screen.review is not None
        (demo_root / "brain-engine" / "tests" / "late.py").write_text("y = 1\n")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog)
        assert "late.py" in screen_text(app)
    assert status(demo_root, GATED) == "waiting_human"


async def test_d_on_the_gate_screen_opens_the_diff(make_app, demo_root: Path) -> None:  # noqa: ANN001
    app = make_app(gates=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, GateDiffScreen) and app.screen.review.sess_id == GATED
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, GateDiffScreen)


async def test_a_refused_review_is_told_inert(make_app, demo_root: Path) -> None:  # noqa: ANN001
    # The gate's file turns corrupt after the cockpit read it; the core's refusal quotes the file's key.
    app = make_app(gates=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        (demo_root / "claims" / f"{GATED}.yml").write_text(
            f"sess_id: {GATED}\n'[@click=app.quit]q[/]': 1\n'[@click=app.quit]q[/]': 2\n", encoding="utf-8")
        await pilot.press("d")
        await settle(pilot)
        told = [n for n in app._notifications if "corrupt" in n.message]
        assert told and "duplicate key '[@click=app.quit]q[/]'" in told[0].message
        assert not told[0].markup  # shown as written: no link, no action
        assert app.is_running


async def test_the_diff_lists_each_file_with_gits_own_status_letter(make_app, demo_root: Path) -> None:  # noqa: ANN001
    """A file the gate's commit created is `A` (its diff says "new file mode"), one it changed `M`, an uncommitted
    deletion `D`: the letters git gives (`--name-status`), never `M` for all."""
    (demo_root / "brain-engine" / "tests" / "test_search.py").unlink()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, GateDiffScreen)
        how = {f.path: (f.how, f.committed) for f in app.screen.review.files}
        assert how["brain-engine/tests/test_pagination.py"] == ("A", True), how
        assert how["brain-engine/tests/test_search.py"] == ("D", False), how
        text = screen_text(app)
        assert " A brain-engine/tests/test_pagination.py" in text, text


async def test_a_renamed_file_shows_as_one_r_line_from_its_old_path(make_app, demo_root: Path) -> None:  # noqa: ANN001
    import subprocess

    tests = demo_root / "brain-engine" / "tests"
    tracked = subprocess.run(["git", "ls-files", "--", "brain-engine/tests/"], cwd=demo_root, check=True,
                             capture_output=True, text=True).stdout.split()
    old = tracked[0]
    new = str((tests / "renamed_by_the_agent.py").relative_to(demo_root))
    subprocess.run(["git", "mv", old, new], cwd=demo_root, check=True)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, GateDiffScreen)
        text = screen_text(app)
        assert f"R {old} → {new}" in text, text
        assert f"D {old}" not in text and f"A {new}" not in text
