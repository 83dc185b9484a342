"""`run_bsi(..., timeout=…)` in process: the call cannot be killed, so a watchdog fails the test (tests/inproc.py)."""

from __future__ import annotations

import importlib
import os
import sys
import time

import pytest

from tests.bsi import run_bsi


def _busy_for(seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.parametrize("catch_all", [False, True], ids=["unwinds", "swallowed-by-a-catch-all"])
def test_a_call_over_its_timeout_fails_the_test_naming_it_and_restores_the_process(
        monkeypatch: pytest.MonkeyPatch, catch_all: bool) -> None:
    cli_main = importlib.import_module("brain_tui.cli.main")

    def hung(argv: list[str]) -> int:
        try:
            _busy_for(30)
        except BaseException:  # noqa: BLE001 - as the hook's entry point does: exit 0, never a traceback
            if not catch_all:
                raise
        return 0

    monkeypatch.setattr(cli_main, "main", hung)
    environ, stdout, folder = dict(os.environ), sys.stdout, os.getcwd()
    started = time.monotonic()
    with pytest.raises(AssertionError, match=r"bsi --now \S+ claim list ran over its timeout of 0.3 s"):
        run_bsi("claim", "list", timeout=0.3)
    assert time.monotonic() - started < 10
    assert (dict(os.environ), sys.stdout, os.getcwd()) == (environ, stdout, folder)


def test_a_call_within_its_timeout_returns_what_it_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    cli_main = importlib.import_module("brain_tui.cli.main")

    monkeypatch.setattr(cli_main, "main", lambda argv: 3)
    assert run_bsi("claim", "list", timeout=5).code == 3
