"""End-to-end fixtures: the real Claude Code CLI, run headless in a demo brain against `fake_api`.

`claude_bin` finds Claude Code at the pinned version (installing it with npm into a cache folder
when the one on PATH is missing or another version); the suite skips only when neither is possible
because npm cannot reach its registry. `e2e_brain` is a demo brain with `bsi hooks install` and
`bsi mcp install` run in it; `run_claude` runs one headless session there with an empty HOME, the
suite's clock in `BRAIN_NOW` (the hooks and the MCP server read it) and a hard timeout that kills
the client's whole process group.
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
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.e2e.fake_api import FakeMessagesAPI, Script

#: The Claude Code release these tests were written against (tests/e2e and .ci/run pin it).
CLAUDE_VERSION = "2.1.197"
CLAUDE_PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_VERSION}"
#: Seconds one headless session may take before its process group is killed.
CLAUDE_TIMEOUT = 60
#: Where a pinned copy is installed when the one on PATH is missing or another version.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "brain-tui-e2e"
#: The folder of the interpreter running the tests: its `bsi` is the one the hooks and `.mcp.json` must run.
VENV_BIN = str(Path(sys.executable).parent)
#: Who commits what the agent's `bsi` (or MCP server) writes.
IDENTITY = "Agent"
#: Inherited variables that would make a process look like an agent's (SPEC 21.1) or bind it to a claim.
AGENT_MARKERS = ("CLAUDE*", "BSI_*", "GEMINI_*", "CODEX_*", "BRAIN_*", "GIT_*")


def _version(binary: str) -> str | None:
    try:
        proc = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"\s*(\S+)", proc.stdout)
    return found.group(1) if proc.returncode == 0 and found else None


def _npm_reachable(npm: str) -> bool:
    try:
        proc = subprocess.run([npm, "ping"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _install_pinned() -> str:
    """Claude Code at CLAUDE_VERSION under CACHE (one install for every xdist worker); skip if npm cannot."""
    prefix = CACHE / f"claude-code-{CLAUDE_VERSION}"
    binary = prefix / "node_modules" / ".bin" / "claude"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _version(str(binary)) == CLAUDE_VERSION:
            return str(binary)
        npm = shutil.which("npm")
        if npm is None or not _npm_reachable(npm):
            pytest.skip(f"end-to-end tests need Claude Code {CLAUDE_VERSION}: `claude` is not installed at that "
                        f"version and npm cannot reach its registry to install {CLAUDE_PACKAGE}")
        proc = subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", CLAUDE_PACKAGE],
                              capture_output=True, text=True, timeout=600, check=False)
        if proc.returncode != 0 or _version(str(binary)) != CLAUDE_VERSION:
            pytest.fail(f"npm install {CLAUDE_PACKAGE} failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
        return str(binary)


@pytest.fixture(scope="session")
def claude_bin() -> str:
    """The path of a Claude Code CLI at CLAUDE_VERSION."""
    on_path = shutil.which("claude")
    if on_path is not None and _version(on_path) == CLAUDE_VERSION:
        return on_path
    return _install_pinned()


@pytest.fixture(scope="session")
def _e2e_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("e2e") / "brain"
    env = clean_env(identity=IDENTITY, PATH=os.pathsep.join([VENV_BIN, os.environ.get("PATH", "")]))
    ok(run_bsi("demo", str(root), cwd=root.parent, env=env))
    ok(run_bsi("hooks", "install", brain=root, env=env))
    ok(run_bsi("mcp", "install", brain=root, env=env))
    return root


@pytest.fixture
def e2e_brain(_e2e_template: Path, tmp_path: Path) -> Path:
    """A demo brain (built at tests.bsi.NOW) with the project's hooks and MCP server installed."""
    target = tmp_path / "brain"
    shutil.copytree(_e2e_template, target, symlinks=True)
    return target


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


def _parse_stream(out: str) -> list[dict[str, Any]]:
    events = []
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _need_sandbox_tools(brain: Path) -> None:
    """Fail with one clear line when the brain's settings turn Claude Code's sandbox on and Linux lacks its tools."""
    settings = brain / ".claude" / "settings.json"
    try:
        sandbox = json.loads(settings.read_text()).get("sandbox") or {}
    except (OSError, ValueError, AttributeError):
        return
    if not (isinstance(sandbox, dict) and sandbox.get("enabled")) or not sys.platform.startswith("linux"):
        return
    missing = [tool for tool in ("bwrap", "socat") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"Claude Code's sandbox needs {' and '.join(missing)} (apt install bubblewrap socat; .ci/run does)")


def _kill_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _user_message(text: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": text}}) + "\n"


class _Timeout(Exception):
    pass


def _drive(proc: subprocess.Popen[str], turns: Sequence[str], deadline: float) -> tuple[list[str], str]:
    """Feed `turns` one at a time (each after the previous turn's `result` event); read until the client exits."""
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
    out: list[str] = []

    def next_line() -> str | None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Timeout
        try:
            return lines.get(timeout=left)
        except queue.Empty:
            raise _Timeout from None

    ended = False
    for turn in turns:
        assert proc.stdin is not None
        proc.stdin.write(_user_message(turn))
        proc.stdin.flush()
        while (line := next_line()) is not None:
            out.append(line)
            if line.startswith('{"type":"result"'):
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
        raise _Timeout from None
    for reader in readers:
        reader.join(timeout=5)
    return out, "".join(errors)


@pytest.fixture
def run_claude(claude_bin: str, tmp_path: Path) -> Callable[..., Session]:
    """`run_claude(brain, prompt, script, env=…, args=…)` → Session: one headless run against `script`.

    `prompt` is one prompt (the `-p` argument) or a list of them, sent one by one as stream-json
    input, each after the client has answered the one before (`/clear` is one of them, say);
    `env` adds to (or with None values removes from) the run's environment; `args` are extra
    command-line flags. The run is killed, with its whole process group, after CLAUDE_TIMEOUT.
    """
    home = tmp_path / "home"
    home.mkdir()

    def run(brain: Path, prompt: str | Sequence[str], script: Script, *,
            env: Mapping[str, str | None] | None = None, args: Sequence[str] = ()) -> Session:
        _need_sandbox_tools(brain)
        turns = None if isinstance(prompt, str) else list(prompt)
        with FakeMessagesAPI(script) as api:
            full = clean_env(
                drop=(*AGENT_MARKERS, "ANTHROPIC_*"), identity=IDENTITY, HOME=str(home),
                PATH=os.pathsep.join([VENV_BIN, os.environ.get("PATH", "")]),
                ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="dummy",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1",
                IS_SANDBOX="1", BRAIN_NOW=NOW)
            for name, value in (env or {}).items():
                if value is None:
                    full.pop(name, None)
                else:
                    full[name] = value
            given = ["--input-format", "stream-json"] if turns is not None else [str(prompt)]
            cmd = [claude_bin, "-p", *given, "--output-format", "stream-json", "--verbose",
                   "--permission-mode", "bypassPermissions", *args]
            proc = subprocess.Popen(cmd, cwd=brain, env=full, text=True, start_new_session=True,
                                    stdin=subprocess.PIPE if turns is not None else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                out, err = _drive(proc, turns or [], time.monotonic() + CLAUDE_TIMEOUT)
            except _Timeout:
                _kill_group(proc)
                pytest.fail(f"claude ran over {CLAUDE_TIMEOUT} s and was killed (requests: {len(api.exchanges)})")
            finally:
                _kill_group(proc)
        return Session(proc.returncode, _parse_stream("".join(out)), err, api)

    return run


@pytest.fixture
def human() -> Callable[..., str]:
    """`human(brain, *args)`: a `bsi` call from the pilot's own terminal (no agent marker), which must succeed."""

    def call(brain: Path, *args: str) -> str:
        return ok(run_bsi(*args, brain=brain, env=clean_env(drop=AGENT_MARKERS, identity="Pilot")))

    return call
