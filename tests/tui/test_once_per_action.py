"""One action, one of each: one read-only check, one dry run per decision, one way to run the core call."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.rules import preview as preview_module
from brain_tui.tui import describe
from brain_tui.tui.app import BrainApp
from brain_tui.tui.screens import confirm
from brain_tui.tui.screens.confirm import GateDecisionDialog

from .conftest import GATED, select, settle, status

pytestmark = pytest.mark.anyio
SMALL = (80, 24)


async def test_the_approve_dialog_runs_each_dry_run_once(make_app, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    runs: Counter[str] = Counter()

    def counted(snapshot: Any, action: str, sess_id: str) -> preview_module.Preview:
        runs[action] += 1
        return preview_module.preview(snapshot, action, sess_id)

    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", GATED)
        monkeypatch.setattr(describe, "preview", counted)
        monkeypatch.setattr(confirm, "preview", counted)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, GateDecisionDialog)
    assert runs == {"approve": 1, "reject": 1}


async def test_an_approval_checks_read_only_once_and_runs_through_the_one_core_runner(
        make_app, demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    checks: list[bool] = []
    runs: list[str] = []
    real_check, real_run = BrainApp.refuse_readonly, BrainApp.run_core

    def check(self: BrainApp) -> bool:
        checks.append(real_check(self))
        return checks[-1]

    def run(self: BrainApp, describe_: str, *args: Any, **kwargs: Any) -> None:
        runs.append(describe_)
        real_run(self, describe_, *args, **kwargs)

    monkeypatch.setattr(BrainApp, "refuse_readonly", check)
    monkeypatch.setattr(BrainApp, "run_core", run)
    app = make_app()
    async with app.run_test(size=SMALL) as pilot:
        await select(pilot, "#active", GATED)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, GateDecisionDialog)
    assert status(demo_root, GATED) != "waiting_human"
    assert checks == [False]
    assert runs == ["approve"]
