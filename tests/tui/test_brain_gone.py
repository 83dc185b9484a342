"""The brain folder deleted (or moved) under a running cockpit: the last state stays on screen, marked
unreadable, and no reading blames git (issue 19 item 7)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.errors import NotFound
from brain_tui.core.sync import gitops
from brain_tui.tui import sources

from .conftest import INSTANCE, NOW, settle

pytestmark = pytest.mark.anyio


def header(app) -> str:  # noqa: ANN001
    return str(app.screen.query_one("#header").render())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_deleted_brain_keeps_the_last_state_and_says_it_is_unreadable(
        make_app, demo_root: Path, size: tuple[int, int]) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        title = str(app.screen.query_one("#pane-claims").border_title)
        assert "Active claims · 7" in title or "Active claims · 6" in title
        shutil.rmtree(demo_root)
        app.refresh_snapshot()
        await settle(pilot)
        assert str(app.screen.query_one("#pane-claims").border_title) == title  # not "· 0"
        assert "unread" in header(app)
        told = [n.message for n in app._notifications]
        assert any("is gone" in m for m in told), told
        app.refresh_snapshot()
        await settle(pilot)
        assert [n.message for n in app._notifications].count(told[-1]) == 1  # said once, not at every read


def test_a_gone_brain_is_not_an_empty_brain(demo_root: Path) -> None:
    brain = Brain(demo_root, clock=lambda: NOW, instance=INSTANCE)
    assert brain.snapshot().claims
    shutil.rmtree(demo_root)
    with pytest.raises(NotFound, match="is gone"):
        brain.snapshot()


def test_git_in_a_gone_folder_is_not_git_missing(demo_root: Path) -> None:
    brain = Brain(demo_root, clock=lambda: NOW, instance=INSTANCE)
    shutil.rmtree(demo_root)
    with pytest.raises(gitops.GitError, match="is gone") as caught:
        gitops.run_git(demo_root, "status")
    assert "not installed" not in caught.value.message
    env, note = sources.collect_env(brain)
    shown = note if env is None else str(env.git)
    assert "not installed" not in shown


def test_a_notice_after_the_brain_is_gone_does_not_make_its_folder_again(demo_root: Path) -> None:
    """A cockpit still open on a deleted brain (a `--demo` cockpit quit and took its folder) told a new item: its
    notice log made `<brain>/.brain/` again, the parse cache followed, and the folder, back with no claims/, read
    as an empty brain in every cockpit open on it."""
    from brain_tui.core.sessions.notify import NotifiedLog

    log = NotifiedLog(demo_root)
    assert log.claim(["gate:a"]) == ["gate:a"]
    shutil.rmtree(demo_root)
    assert log.claim(["gate:b"]) == ["gate:b"]  # the notice still goes out (best effort)
    assert not demo_root.exists()
