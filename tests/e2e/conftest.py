"""End-to-end fixtures: the real Claude Code CLI, run headless in a demo brain against `fake_api`.

`claude_bin` finds Claude Code at the pinned version (`client.find_claude`: on PATH, else installed
with npm into a cache folder); the suite skips only when npm cannot reach its registry to get it.
`e2e_brain` is a demo brain built at the machine's clock with `bsi hooks install` and `bsi mcp install`
run in it (its claim IDs carry that time: `demo_claim` finds one by its slug); `run_claude` runs one
headless session there with an empty HOME at the machine's clock (the agent's hooks and MCP server judge
its claims at it: at the suite's fixed past time they would have run out) and a hard timeout that kills
the client's whole process group.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from tests import ramdisk
from tests.bsi import clean_env, ok, run_bsi
from tests.clock import live_now
from tests.e2e.client import InstallFailed, Session, TimedOut, Unavailable, drive, find_claude, kill_group, parse_stream
from tests.e2e.fake_api import FakeMessagesAPI, Script

#: Seconds one headless session may take before its process group is killed.
CLAUDE_TIMEOUT = 60
#: Where a pinned copy is installed when the one on PATH is missing or another version.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "brain-tui-e2e"
#: The folder of the interpreter running the tests: its `bsi` is the one the hooks and `.mcp.json` must run.
VENV_BIN = str(Path(sys.executable).parent)
#: Who commits what the agent's `bsi` (or MCP server) writes.
IDENTITY = "Agent"
#: The flags of every headless run: stream-json out, and no permission prompt (as root: IS_SANDBOX=1).
HEADLESS = ("--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions")
#: Inherited variables that would make a process look like an agent's (SPEC 21.1) or bind it to a claim.
AGENT_MARKERS = ("CLAUDE*", "BSI_*", "GEMINI_*", "CODEX_*", "BRAIN_*", "GIT_*")


@pytest.fixture(scope="session")
def claude_bin() -> str:
    """The path of a Claude Code CLI at the pinned version (skips only when npm cannot get one)."""
    try:
        return find_claude(CACHE)
    except Unavailable as exc:
        pytest.skip(str(exc))
    except InstallFailed as exc:
        pytest.fail(str(exc))


def _on_disk(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix, dir=ramdisk.DISK))


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A temporary folder on the disk (tests/ramdisk.DISK), even when the suite's are in RAM: Claude Code's
    sandbox mounts a /dev of its own, where a brain under /dev/shm would not be."""
    folder = _on_disk("bsi-e2e-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


#: How long a built demo serves as the template of the next tests' brains: its shortest claim (api-search, 20 min)
#: must stay live through a test started from a copy, with room for a slow machine.
TEMPLATE_LIFE_S = 8 * 60


@pytest.fixture(scope="session")
def _e2e_template() -> Iterator[Callable[[], Path]]:
    """The demo brain the e2e tests copy, built now (`tests.clock.live_now`) with the project's hooks and MCP server
    installed, and built again once it is `TEMPLATE_LIFE_S` old (the agent judges its claims at the machine's clock).
    Nothing in it names its folder, so a copy works anywhere."""
    folder = _on_disk("bsi-e2e-template-")
    built: list[tuple[float, Path]] = []

    def current() -> Path:
        if built and time.monotonic() - built[-1][0] < TEMPLATE_LIFE_S:
            return built[-1][1]
        root = folder / f"brain-{len(built)}"
        env = clean_env(drop=AGENT_MARKERS, identity=IDENTITY,
                        PATH=os.pathsep.join([VENV_BIN, os.environ.get("PATH", "")]))
        now = live_now()
        ok(run_bsi("demo", str(root), cwd=folder, env=env, now=now))
        ok(run_bsi("hooks", "install", brain=root, env=env, now=now))
        ok(run_bsi("mcp", "install", brain=root, env=env, now=now))
        built.append((time.monotonic(), root))
        return root

    yield current
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def e2e_brain(_e2e_template: Callable[[], Path], tmp_path: Path) -> Path:
    """A demo brain built at most `TEMPLATE_LIFE_S` ago at the machine's clock, with the project's hooks and MCP
    server installed: a copy of the session's template (its claims live a few hours at most from when it was built).
    """
    root = tmp_path / "brain"
    shutil.copytree(_e2e_template(), root, symlinks=True)
    return root


def demo_claim(brain: Path, slug: str) -> str:
    """The ID of the demo brain's claim `slug` (``api-search``): its time part is when the brain was built."""
    [found] = {path.stem for path in (brain / "claims").rglob(f"sess-*-{slug}.yml")}
    return found


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


@pytest.fixture
def run_claude(claude_bin: str, tmp_path: Path) -> Callable[..., Session]:
    """`run_claude(brain, prompt, script, env=…, args=…)` → Session: one headless run against `script`.

    `prompt` is one prompt (the `-p` argument) or a list of them, sent one by one as stream-json
    input, each after the client has answered the one before (`/clear` is one of them, say);
    `env` adds to (or with None values removes from) the run's environment; `args` are extra
    command-line flags; `command` replaces the whole command line (`bsi launch ID --here`, which
    becomes the client). The run is killed, with its whole process group, after CLAUDE_TIMEOUT.
    """
    home = tmp_path / "home"
    home.mkdir()
    claude_tmp = tmp_path / "claude-tmp"
    claude_tmp.mkdir()
    # the system temp folder of the run (its sandbox leaves a `claude-empty-*` folder there each start): the test's,
    # on the disk like the rest of it, removed with it
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()

    def run(brain: Path, prompt: str | Sequence[str], script: Script, *,
            env: Mapping[str, str | None] | None = None, args: Sequence[str] = (),
            command: Sequence[str] | None = None) -> Session:
        _need_sandbox_tools(brain)
        turns = None if isinstance(prompt, str) else list(prompt)
        with FakeMessagesAPI(script) as api:
            full = clean_env(
                drop=(*AGENT_MARKERS, "ANTHROPIC_*"), identity=IDENTITY, HOME=str(home),
                PATH=os.pathsep.join([VENV_BIN, os.environ.get("PATH", "")]),
                ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="dummy",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1",
                IS_SANDBOX="1", TMPDIR=str(system_tmp),
                # its per-user temp folder (background tasks' output) in the test's, not left in /tmp
                CLAUDE_CODE_TMPDIR=str(claude_tmp))
            for name, value in (env or {}).items():
                if value is None:
                    full.pop(name, None)
                else:
                    full[name] = value
            given = ["--input-format", "stream-json"] if turns is not None else [str(prompt)]
            cmd = list(command) if command is not None else [claude_bin, "-p", *given, *HEADLESS, *args]
            proc = subprocess.Popen(cmd, cwd=brain, env=full, text=True, start_new_session=True,
                                    stdin=subprocess.PIPE if turns is not None else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                out, err = drive(proc, turns or [], time.monotonic() + CLAUDE_TIMEOUT)
            except TimedOut:
                kill_group(proc)
                pytest.fail(f"claude ran over {CLAUDE_TIMEOUT} s and was killed (requests: {len(api.exchanges)})")
            finally:
                kill_group(proc)
        return Session(proc.returncode, parse_stream(out), err, api)

    return run


@pytest.fixture
def human() -> Callable[..., str]:
    """`human(brain, *args)`: a `bsi` call from the pilot's own terminal (no agent marker), which must succeed."""

    def call(brain: Path, *args: str) -> str:
        return ok(run_bsi(*args, brain=brain, now=None, env=clean_env(drop=AGENT_MARKERS, identity="Pilot")))

    return call
