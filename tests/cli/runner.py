"""A `bsi` runner for CLI tests that pin their own clock (a real subprocess, a clean environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ENV = {k: v for k, v in os.environ.items() if k not in ("BRAIN_ROOT", "BRAIN_NOW")}
ENV.update({"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org",
            "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.org"})

Runner = Callable[..., subprocess.CompletedProcess[str]]


def bsi_at(default_now: str) -> Runner:
    """A `bsi(brain, *args, now=default_now)` runner: `bsi --brain BRAIN [--now NOW] ARGS…`."""

    def bsi(brain: Path, *args: str, now: str | None = default_now) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "brain_tui.cli.main", "--brain", str(brain)]
        if now:
            cmd += ["--now", now]
        return subprocess.run([*cmd, *args], capture_output=True, text=True, env=ENV, cwd=brain, check=False)

    return bsi


def git(brain: Path, *args: str) -> str:
    """Output of one git command in the brain (raises on failure)."""
    return subprocess.run(["git", *args], cwd=brain, capture_output=True, text=True, env=ENV,
                          check=True).stdout
