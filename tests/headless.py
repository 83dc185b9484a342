"""One headless run of a real agent client (Gemini CLI, Codex CLI) against a fake model API: its JSON events."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest


def headless_events(argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float,
                    client: str) -> list[Any]:
    """Run `argv` in its own process group, killed whole past `timeout` (the test fails naming `client`); it must
    exit 0. The JSON objects it printed, one a line."""
    proc = subprocess.Popen(list(argv), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, env=dict(env))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{client} did not finish")
    assert proc.returncode == 0, err
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]
