"""The Claude Code CLI for the end-to-end tests: finding it at the pinned version, and driving one headless run.

`find_claude` returns a `claude` at CLAUDE_VERSION: the one on PATH, else one npm installs into a
cache folder; when neither is possible because npm cannot reach its registry it raises `Unavailable`
(the suite skips with that message, and only then). `drive` feeds a running client its prompts one
at a time and reads its stream-json output until it exits or the deadline passes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.fake_api import FakeMessagesAPI

#: The Claude Code release these tests were written against (.ci/run installs the same one).
CLAUDE_VERSION = "2.1.197"
CLAUDE_PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_VERSION}"


class Unavailable(Exception):
    """No Claude Code at the pinned version, and npm cannot reach its registry to install one."""


class InstallFailed(Exception):
    """npm was reachable but did not leave a working Claude Code at the pinned version."""


def version_of(binary: str) -> str | None:
    """The version `binary --version` prints first (`2.1.197 (Claude Code)` → `2.1.197`), None if it cannot run."""
    try:
        proc = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"\s*(\S+)", proc.stdout)
    return found.group(1) if proc.returncode == 0 and found else None


def npm_reachable(npm: str) -> bool:
    """Whether `npm ping` reaches the configured registry."""
    try:
        proc = subprocess.run([npm, "ping"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def npm_install(npm: str, prefix: Path) -> subprocess.CompletedProcess[str]:
    """`npm install --prefix PREFIX CLAUDE_PACKAGE`."""
    return subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", CLAUDE_PACKAGE],
                          capture_output=True, text=True, timeout=600, check=False)


def find_claude(cache: Path) -> str:
    """The path of a Claude Code CLI at CLAUDE_VERSION: on PATH, else installed by npm under `cache`.

    One install serves every xdist worker (a file lock under `cache`). Raises `Unavailable` when
    npm is missing or cannot reach its registry, `InstallFailed` when its install did not work.
    """
    on_path = shutil.which("claude")
    if on_path is not None and version_of(on_path) == CLAUDE_VERSION:
        return on_path
    prefix = cache / f"claude-code-{CLAUDE_VERSION}"
    binary = str(prefix / "node_modules" / ".bin" / "claude")
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if version_of(binary) == CLAUDE_VERSION:
            return binary
        npm = shutil.which("npm")
        if npm is None or not npm_reachable(npm):
            found = f"`claude` {version_of(on_path) or 'that does not run'}" if on_path else "no `claude` on PATH"
            raise Unavailable(f"end-to-end tests need Claude Code {CLAUDE_VERSION} ({found}), and npm "
                              f"{'is not installed' if npm is None else 'cannot reach its registry'} "
                              f"to install {CLAUDE_PACKAGE}")
        proc = npm_install(npm, prefix)
        if proc.returncode != 0 or version_of(binary) != CLAUDE_VERSION:
            raise InstallFailed(f"npm install {CLAUDE_PACKAGE} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
        return binary


@dataclass
class Session:
    """What one headless Claude Code run gave: exit code, the stream-json events, stderr, the server's record."""

    code: int
    events: list[dict[str, Any]]
    stderr: str
    api: FakeMessagesAPI

    @property
    def session_ids(self) -> list[str]:
        """The agent session IDs the client announced in its `init` events, in order, each once."""
        found: list[str] = []
        for event in self.events:
            announced = event.get("type") == "system" and event.get("subtype") == "init"
            if announced and str(event["session_id"]) not in found:
                found.append(str(event["session_id"]))
        return found

    @property
    def session_id(self) -> str:
        """The agent session ID the client announced first."""
        ids = self.session_ids
        assert ids, f"no init event in the client's output:\n{self.transcript()}"
        return ids[0]

    def transcript(self) -> str:
        """The client's output, for an assertion message."""
        return "\n".join(json.dumps(event)[:600] for event in self.events) + f"\nstderr: {self.stderr[-2000:]}"


def parse_stream(out: str) -> list[dict[str, Any]]:
    """The JSON objects of a stream-json output, one a line (other lines skipped)."""
    events = []
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def kill_group(proc: subprocess.Popen[str]) -> None:
    """SIGKILL the process group `proc` leads (the client, its hooks, its MCP servers), if any is left."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def user_message(text: str) -> str:
    """One stream-json input line: a user message."""
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"


class TimedOut(Exception):
    """The client did not finish before the deadline."""


def _is_result(line: str) -> bool:
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return isinstance(event, dict) and event.get("type") == "result"


def drive(proc: subprocess.Popen[str], turns: Sequence[str], deadline: float) -> tuple[str, str]:
    """(stdout, stderr) of `proc`, fed `turns` one at a time, each after the previous turn's `result` event.

    Raises `TimedOut` when `time.monotonic()` passes `deadline` first (the caller kills the group).
    """
    lines: queue.Queue[str | None] = queue.Queue()
    errors: list[str] = []
    assert proc.stdout is not None and proc.stderr is not None
    out_pipe, err_pipe = proc.stdout, proc.stderr

    def read_out() -> None:
        for line in out_pipe:
            lines.put(line)
        lines.put(None)

    def read_err() -> None:
        errors.append(err_pipe.read())

    readers = [threading.Thread(target=read_out, daemon=True), threading.Thread(target=read_err, daemon=True)]
    for reader in readers:
        reader.start()

    def next_line() -> str | None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimedOut
        try:
            return lines.get(timeout=left)
        except queue.Empty:
            raise TimedOut from None

    out: list[str] = []
    ended = False
    for turn in turns:
        assert proc.stdin is not None
        proc.stdin.write(user_message(turn))
        proc.stdin.flush()
        while (line := next_line()) is not None:
            out.append(line)
            if _is_result(line):
                break
        else:
            ended = True
            break
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    while not ended and (line := next_line()) is not None:
        out.append(line)
    try:
        proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        raise TimedOut from None
    for reader in readers:
        reader.join(timeout=5)
    return "".join(out), "".join(errors)
