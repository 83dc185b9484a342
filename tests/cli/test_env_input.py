"""`bsi env` and the environment pane, at their edges (SPEC 13, 16): a timeout that is no duration is refused in one
line, a source that failed as a whole says why, and a measure is shown rounded, not as pm2 printed it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from brain_tui.cli.state import format_env
from brain_tui.core.environment.env import EnvState
from brain_tui.tui.widgets.env_panel import render_env
from tests.bsi import clean_env, run_bsi

ENV = clean_env(drop=("BRAIN_ROOT", "BRAIN_NOW", "BRAIN_PORT", "BRAIN_MCP_PORT", "BRAIN_KEY_PORT"), pin=False,
                identity="Test")


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("env-input") / "brain"
    proc = run_bsi("init", str(root), now=None, env=ENV, timeout=None)
    assert proc.code == 0, proc.err
    return root


@pytest.mark.parametrize("value", ["abc", "nan", "inf", "-1", "0", "1e308", "=-inf"])
def test_a_timeout_that_is_no_duration_is_invalid_data(brain: Path, value: str) -> None:
    flag = ("--timeout" + value,) if value.startswith("=") else ("--timeout", value)
    proc = run_bsi("env", *flag, brain=brain, env=ENV, timeout=120)
    assert proc.code == 65, (value, proc.code, proc.err)
    assert proc.out == ""
    lines = proc.err.strip().splitlines()
    assert len(lines) == 1 and "--timeout" in lines[0] and "Traceback" not in proc.err, proc.err
    proc = run_bsi("env", *flag, "--json", brain=brain, env=ENV, timeout=120)
    assert proc.code == 65 and json.loads(proc.out)["exit"] == 65, proc.out


def test_a_sane_timeout_is_taken(brain: Path) -> None:
    proc = run_bsi("env", "--timeout", "0.5", brain=brain, env=ENV, timeout=120)
    assert proc.code == 0, proc.err


def reading(**parts: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"hostname": "h", "instance": "b@h", "git": {"error": "git timed out"},
                            "pm2": {"available": False, "error": "pm2 not found", "processes": []},
                            "ports": {"listening": [], "configured": []}, "system": {"error": "system timed out"}}
    return {**base, **parts}


def test_a_system_reading_that_failed_as_a_whole_says_why() -> None:
    text = format_env(reading())
    line = next(row for row in text.splitlines() if row.startswith("system"))
    assert "system timed out" in line and "None" not in line, line
    pane = render_env(EnvState(**reading())).plain
    assert "system timed out" in pane


def test_pm2_cpu_is_shown_rounded() -> None:
    proc = {"name": "svc", "pid": 7, "status": "online", "uptime_s": 60.0, "restarts": 0, "cpu": 0.333333,
            "memory": 1024, "port": None}
    data = reading(pm2={"available": True, "error": None, "processes": [proc]})
    text = format_env(data)
    assert "0.3%" in text and "0.333333" not in text, text
    pane = render_env(EnvState(**data)).plain
    assert "0.3%" in pane and "0.333333" not in pane, pane
