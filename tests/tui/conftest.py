"""Fixtures of the cockpit tests: a demo brain at a fixed now, an app with every live feature off."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import shutil
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from time import monotonic, process_time
from typing import Any

import pytest
import textual._wait
from textual._context import active_app
from textual.css.stylesheet import Stylesheet
from textual.worker import WorkerState

from brain_tui.core.brain import Brain
from brain_tui.core.environment.env import EnvState
from brain_tui.demo import build_demo
from brain_tui.tui.app import BrainApp

#: Every cockpit test runs at this instant (the demo brain is built for it).
NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
INSTANCE = "prod@desktop"

PILOT = "sess-20261129-0800-pilote-be7"
DOMAIN = "sess-20261129-0810-api-domain"
SEARCH = "sess-20261129-0820-api-search"
GATED = "sess-20261129-0830-api-tests"
DEPLOY = "sess-20261129-0950-deploy-notes"
STALE = "sess-20261129-0500-notes-wrap"

#: A fixed environment reading (the real one depends on the machine).
FAKE_ENV = EnvState(
    hostname="desktop",
    instance=INSTANCE,
    git={"branch": "main", "dirty_count": 0, "ahead": None, "behind": None, "remote": None,
         "version": "0000000 bsi: demo"},
    pm2={"available": False, "error": "pm2 not found", "processes": []},
    ports={"listening": [], "configured": [
        {"name": "brain-api", "port": 7700, "up": True, "source": "brain-compose.yml"},
        {"name": "brain-mcp", "port": 7701, "up": False, "source": "brain-compose.yml"},
    ]},
    system={"load": {"1m": 0.42, "5m": 0.35, "15m": 0.3, "cpus": 4},
            "memory": {"percent": 41.0}, "disk": {"percent": 63.0, "free": 40 * 1024 ** 3}},
)

#: A fuller fixed reading for the environment pane's own tests: pm2 processes, listening ports with their
#: process, a dirty work tree, a remote — and one failing source (memory), which must show as such.
FULL_ENV = EnvState(
    hostname="desktop",
    instance=INSTANCE,
    git={"branch": "main", "dirty_count": 2, "dirty": ["wiki/concepts.md", "todo/brain.md"], "ahead": 1,
         "behind": 2, "remote": "origin", "last_sync": "2026-11-29T09:58:00+00:00", "last_sync_age_s": 120,
         "version": "e3c41d2 bsi: mark stale sess-20261129-0500-notes-wrap"},
    pm2={"available": True, "error": None, "processes": [
        {"name": "brain-api", "status": "online", "uptime_s": 93784, "restarts": 0, "cpu": 1.5,
         "memory": 88 * 1024 ** 2, "port": 7700},
        {"name": "brain-mcp", "status": "errored", "uptime_s": None, "restarts": 12, "cpu": 0, "memory": 0,
         "port": 7701},
    ]},
    ports={"error": None, "note": None,
           "listening": [{"port": 22, "address": "0.0.0.0", "pid": 801, "process": "sshd"},
                         {"port": 7700, "address": "127.0.0.1", "pid": 4242, "process": "node"}],
           "configured": [
               {"name": "brain-api", "port": 7700, "up": True, "source": "brain-compose.yml"},
               {"name": "brain-mcp", "port": 7701, "up": False, "source": "brain-compose.yml"},
               {"name": "BRAIN_KEY_PORT", "port": None, "up": False, "source": "env",
                "error": "not a port number: 'abc'"},
           ]},
    system={"load": {"1m": 0.42, "5m": 0.35, "15m": 0.3, "cpus": 4},
            "memory": {"error": "PermissionError: /proc/meminfo"},
            "disk": {"percent": 63.0, "free": 40 * 1024 ** 3}},
)


class MovableClock:
    """A clock tests can move forward."""

    def __init__(self, at: datetime = NOW) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **kwargs: float) -> None:
        self.at = self.at + timedelta(**kwargs)


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings go to a temporary XDG_CONFIG_HOME; NO_COLOR and BRAIN_* never leak in from the shell."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg")))
    for name in ("NO_COLOR", "BRAIN_NOW", "BRAIN_ROOT", "TEXTUAL"):
        monkeypatch.delenv(name, raising=False)


#: The window of the pilot's idle wait while no thread of the app is at work (Textual's own is 20 ms).
QUICK_WINDOW = 0.005
#: Textual's idle wait (textual._wait.wait_for_idle), which the quick one falls back to.
TEXTUAL_WAIT_FOR_IDLE = textual._wait.wait_for_idle


def _threads_at_work() -> bool:
    """A worker of the running app is pending or running, or a thread of the cockpit's own is alive."""
    app = active_app.get(None)
    if app is not None and any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers):
        return True
    return any(thread.name.startswith("brain-tui-") for thread in threading.enumerate())


async def quick_wait_for_idle(min_sleep: float = textual._wait.SLEEP_GRANULARITY, max_sleep: float = 1) -> None:
    """Textual's idle wait (after each key the pilot sends, in every `pilot.pause()`), in 5 ms windows.

    The same test as Textual's: the process is idle once a window went by with under 5% of it spent on
    the CPU, after `min_sleep`, or after `max_sleep` at most. The event loop runs every ready message
    before the window's timer fires, so a window spent handling messages is never idle. Whenever a
    worker (a thread: the core's writes, reads, git) or a cockpit thread is at work, the window is
    Textual's 20 ms, as a thread waiting for a git process spends no CPU.
    """
    start = monotonic()
    while True:
        window = textual._wait.SLEEP_GRANULARITY if _threads_at_work() else QUICK_WINDOW
        cpu_time = process_time()
        await asyncio.sleep(window)
        cpu_elapsed = process_time() - cpu_time
        elapsed = monotonic() - start
        if elapsed >= max_sleep:
            break
        if elapsed > min_sleep and cpu_elapsed < window / 20:
            break


@pytest.fixture(autouse=True)
def _quick_idle_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pilot's idle wait in 5 ms windows while no thread is at work (`quick_wait_for_idle`)."""
    import textual.app
    import textual.pilot

    for module in (textual.app, textual.pilot):
        assert module.wait_for_idle is TEXTUAL_WAIT_FOR_IDLE
        monkeypatch.setattr(module, "wait_for_idle", quick_wait_for_idle)


@pytest.fixture(autouse=True)
def _freeze_survivors() -> Iterator[None]:
    """After each cockpit test, collect its garbage once and move what survives out of the collector (`gc.freeze`).

    What outlives a cockpit test is the worker's long-lived state: Textual's and Rich's module caches (`lru_cache`s
    of strips, segments, styles, each strip with its own small caches) grow by thousands of objects a test, and
    the product collects in full after every write it shows (tui/heap.py `release`, as a long-lived cockpit
    should): each of those walked the whole grown heap, ~0.3 s, about a tenth of the cockpit tests' CPU. Frozen
    objects are still freed by reference counting; the test's own app and cycles are collected here, before the
    freeze. What a test checks is unchanged.
    """
    yield
    gc.collect()
    gc.freeze()


#: Textual's parsed rules by (the stylesheet's variables, CSS, where it was read, defaults?, tie breaker, scope).
_PARSED_RULES: dict[tuple[object, ...], list[Any]] = {}
#: Textual's own parse of one stylesheet's CSS (cached per `Stylesheet`, so per app).
TEXTUAL_PARSE_RULES = Stylesheet._parse_rules


def _shared_parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                        tie_breaker: int = 0, scope: str = "") -> list[Any]:
    """`Stylesheet._parse_rules` remembered across the worker's apps (`_shared_parse_rules`)."""
    key = (tuple(sorted(self._variables.items())), css, read_from, is_default_rules, tie_breaker, scope)
    rules = _PARSED_RULES.get(key)
    if rules is None:
        rules = _PARSED_RULES[key] = TEXTUAL_PARSE_RULES(self, css, read_from, is_default_rules, tie_breaker, scope)
    return rules


@pytest.fixture(autouse=True)
def _parse_css_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each app's stylesheet parses the same CSS with the same variables: the first parse's rules serve the rest.

    Textual caches a parse per stylesheet, and every cockpit test starts an app with a new one: parsing the
    product's and Textual's CSS again took ~0.05 s a test. The rules are a pure function of the CSS and the
    variables (the theme) it is parsed with, both in the key; Textual never changes a rule set once parsed
    (it keeps the same lists in its own cache). CSS that fails to parse is never kept, so it fails every time.
    """
    assert Stylesheet._parse_rules is TEXTUAL_PARSE_RULES
    monkeypatch.setattr(Stylesheet, "_parse_rules", _shared_parse_rules)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo brain, built once per test session at NOW."""
    return build_demo(tmp_path_factory.mktemp("template") / "brain", NOW)


@pytest.fixture
def demo_root(demo_template: Path, tmp_path: Path) -> Path:
    """A private copy of the demo brain (a git repository) for one test."""
    target = tmp_path / "brain"
    shutil.copytree(demo_template, target, symlinks=True)
    return target


@pytest.fixture
def clock() -> MovableClock:
    """The injected clock (starts at NOW)."""
    return MovableClock()


@pytest.fixture
def make_app(demo_root: Path, clock: MovableClock) -> Callable[..., BrainApp]:
    """Build a deterministic cockpit over the test's demo brain (no timers, no watcher, fixed env)."""

    def factory(**kwargs: Any) -> BrainApp:
        brain = Brain(demo_root, clock=clock, instance=INSTANCE)
        options: dict[str, Any] = {"live": False, "theme": "brain-dark", "remember_theme": False,
                                   "env_provider": lambda _brain: (FAKE_ENV, "")}
        options.update(kwargs)
        return BrainApp(brain, **options)

    return factory


def fresh(root: Path) -> Brain:
    """A new Brain on `root`, as `bsi` would open it."""
    return Brain(root, now=NOW.isoformat(), instance="prod@laptop")


@pytest.fixture
def anyio_backend() -> str:
    """Pilot tests run on asyncio (Textual's loop)."""
    return "asyncio"


def screen_text(app: BrainApp) -> str:
    """The screen as plain text (what a person would read)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def settle(pilot: Any) -> None:
    """Let key handlers, worker threads and the refresh they trigger finish."""
    from textual.worker import WorkerCancelled

    for _ in range(3):
        await pilot.pause()
        with contextlib.suppress(WorkerCancelled):  # a screen closed while its worker ran (a detail's git log)
            await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def status(root: Path, sess_id: str) -> str:
    """The claim's status as `bsi` reads it now."""
    claim = fresh(root).snapshot().claim(sess_id)
    assert claim is not None
    return claim.status


def last_commit(root: Path) -> str:
    """The subject of the brain's last commit."""
    import subprocess

    return subprocess.run(["git", "log", "-1", "--format=%s"], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()


async def select(pilot: Any, table_id: str, key: str) -> None:
    """Focus a table and put its cursor on the row `key`."""
    table = pilot.app.screen.query_one(table_id)
    table.focus()
    assert table.select_key(key), f"{key} not in {table_id}"
    await pilot.pause()


@pytest.fixture
def hostile_root(demo_root: Path) -> Iterator[Path]:
    """The demo brain plus claims whose stories carry escapes, markup, bidi and zero-width characters."""
    from brain_tui.core.clock import parse_duration
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules import claims

    brain = Brain(demo_root, clock=lambda: NOW, instance="evil@box")
    for slug, scope, story in HOSTILE_STORIES:
        brain.open_claim(claims.OpenRequest(scope=parse_scope(scope, demo_root), ttl=parse_duration("2h"),
                                              instance="evil@box", story=story, slug=slug))
    yield demo_root


HOSTILE_STORIES = (
    ("esc", "wiki/a.md", "esc \x1b[31mRED\x1b[0m osc \x1b]0;pwned\x07 end"),
    ("mkp", "wiki/b.md", "mk [ @click=app.quit] [b]bold[/b] [link=https://x]y[/link]"),
    ("bidi", "wiki/c.md", "bidi \u202eevil\u202c zw\u200bsp \x9b31m c1"),
)


#: How many claims `crowded_root` adds to the demo: more than the claims pane can show at 120x40.
CROWD = 40


@pytest.fixture
def crowded_root(demo_root: Path) -> Path:
    """The demo brain plus `CROWD` open claims (one per folder), written without commits (it is faster)."""
    from brain_tui.core.clock import parse_duration
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules import claims

    brain = Brain(demo_root, clock=lambda: NOW, instance="prod@box", commit=False)
    for i in range(CROWD):
        brain.open_claim(claims.OpenRequest(scope=parse_scope(f"area{i:02d}/", demo_root), ttl=parse_duration("2h"),
                                            instance="prod@box", story=f"work item {i}", slug=f"w{i:02d}"))
    return demo_root
