"""The cockpit's first frame comes sooner (issue 18): less imported at start, less read before the paint.

What a process imports is deterministic, so the import test checks it (the time it costs is measured only in
`benchmarks/`, `cockpit_probe.py`).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from typing import Any

import pytest

from brain_tui.tui import sources
from tests.bsi import clean_env

from .conftest import settle

#: Modules the cockpit needs only once a pane, a dialog or a worker asks for them, not for its first frame.
LATER = (
    "brain_tui.core.environment.env",  # the environment pane's reading (a worker, after the paint)
    "brain_tui.core.sync.audit",  # `v` (verify) in the detail screen
    "brain_tui.core.sync.remote",  # the sync state (a worker, or right after the paint)
    "brain_tui.core.records.headers",  # the lint screen
    "brain_tui.core.rules.preview",  # the confirm dialogs' dry run
    "brain_tui.tui.describe",  # the claim texts of the queue, detail and dialogs
)

PROBE = (
    "import sys\n"
    "import brain_tui.tui.app\n"
    f"print(repr(sorted(m for m in {LATER!r} if m in sys.modules)))\n"
)


def test_importing_the_app_leaves_what_the_first_frame_does_not_show() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=clean_env(),
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-800:]
    assert ast.literal_eval(done.stdout.strip().splitlines()[-1]) == []


pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("progressive", [True, False])
async def test_branch_and_sync_state_are_read_after_the_first_frame_only_on_a_progressive_start(
        make_app, monkeypatch: pytest.MonkeyPatch, progressive: bool) -> None:  # noqa: ANN001
    app = make_app(progressive=True) if progressive else make_app()
    painted_at_read: list[float | None] = []
    real = sources.sync_status

    def sync_status(brain: Any) -> Any:
        painted_at_read.append(app.first_paint_at)
        return real(brain)

    monkeypatch.setattr(sources, "sync_status", sync_status)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert painted_at_read
        if progressive:
            assert painted_at_read[0] is not None  # read once the first frame was drawn
            assert app.env_note == ""  # the injected environment was read too
        else:
            assert painted_at_read[0] is None  # tests and screenshots: the first frame shows it all
        assert app.branch  # then shown: the demo brain is a git repository on a branch


async def test_a_read_that_lands_while_the_screens_widgets_go_shows_nothing_and_raises_nothing(make_app) -> None:  # noqa: ANN001
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.screen.query_one("#header").remove()  # as when the app closes mid-read
        app.show_snapshot()
        await pilot.pause()
        assert app.is_running
