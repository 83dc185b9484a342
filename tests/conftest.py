"""Shared fixtures: the `bsi` runner (tests/bsi.py) and temporary brains.

Every brain lives under `tmp_path`; the legacy fixtures are copied, never used in place.
Brains are made once per session (init, demo) and copied per test: copying a small
repository is much cheaper than running `git init` and a commit again.
"""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import (
    bytecode,  # noqa: F401  # first: children run from cached bytecode
    ramdisk,  # first: temporary folders on tmpfs, before anything reads TMPDIR
)
from tests.agent_markers import REMOVED as AGENT_MARKERS_REMOVED  # first: before tests.bsi copies the environment
from tests.bsi import Run, git, ok, run_bsi
from tests.paths import LEGACY

#: Fixture modules shared by several suites (a private tmux server: `tmux_env`, `private_tmux`).
pytest_plugins = ["tests.tmux"]

GIT_USER = ("Ada Tester", "ada@example.org")

#: The cyclic collector's first threshold in the test processes (Python's default is 700 allocations).
#: A pytest worker holds every test module, Textual, hypothesis and the product at once (~130,000 objects,
#: ~300,000 with the cockpit tests' garbage), and every full collection walks them all: 0.1–0.2 s each, about
#: a quarter of the CPU of the cockpit tests, where each pilot test allocated its way through one or two of
#: them. Fewer passes over the same objects (the cockpit files 30 s -> 24 s of CPU); what a collection frees is
#: unchanged, it only comes later. The product's own calls (`gc.collect` in tui/heap.py, `gc.disable` around a
#: command) are untouched, and the `bsi`, hook and cockpit processes the tests start keep Python's defaults.
GC_THRESHOLD0 = 10_000
gc.set_threshold(GC_THRESHOLD0, *gc.get_threshold()[1:])


def claim_file(root: Path, sess_id: str) -> Path:
    """Where a product-written claim lives."""
    return root / "claims" / f"{sess_id}.yml"


def load_claim(root: Path, sess_id: str) -> dict[str, Any]:
    """A claim file parsed with the product's bounded loader."""
    from brain_tui.core.records.yamlio import safe_load_file

    return safe_load_file(claim_file(root, sess_id))


def signal_docs(root: Path) -> list[dict[str, Any]]:
    """Every signal file, parsed, ordered by file name."""
    from brain_tui.core.records.yamlio import safe_load_file

    return [safe_load_file(p) for p in sorted((root / "signals").glob("*.yml"))]


def tree_bytes(root: Path, folders: tuple[str, ...] = ("claims", "signals", "locks")) -> dict[str, bytes]:
    """Every data file's bytes plus BRAIN-INDEX.md: compare before/after to prove "nothing changed"."""
    found = {}
    for folder in folders:
        base = root / folder
        if base.is_dir():
            for path in sorted(base.iterdir()):
                if path.is_file():
                    found[f"{folder}/{path.name}"] = path.read_bytes()
    index = root / "BRAIN-INDEX.md"
    if index.exists():
        found["BRAIN-INDEX.md"] = index.read_bytes()
    return found


def _configure_git(root: Path) -> None:
    git(root, "config", "user.name", GIT_USER[0])
    git(root, "config", "user.email", GIT_USER[1])


@pytest.fixture
def bsi() -> Callable[..., Run]:
    """The `bsi` runner: `bsi(*args, brain=…, now=…, cwd=…, env=…)` → Run(code, out, err)."""
    return run_bsi


@pytest.fixture(scope="session")
def _brain_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("template") / "brain"
    ok(run_bsi("init", str(root), cwd=root.parent))
    _configure_git(root)
    return root


@pytest.fixture
def brain(_brain_template: Path, tmp_path: Path) -> Path:
    """A fresh `bsi init` brain (its own git repository, identity configured)."""
    target = tmp_path / "brain"
    shutil.copytree(_brain_template, target, symlinks=True)
    return target


def template_from(_brain_template: Path, tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A fresh copy of the `bsi init` template in its own folder, for a session-scoped template to build on.

    A fixture that opens the same claims for every test builds them once in such a copy (at the fixed
    clock of tests/bsi.py) and puts a copy in place per test (`copy_brain`): the brain records no absolute
    path of its own, and what is keyed on a file's identity (the `.brain/` caches, git's index) is
    checked again against the copy by the product and by git.
    """
    root = tmp_path_factory.mktemp(name) / "brain"
    shutil.copytree(_brain_template, root, symlinks=True)
    return root


def copy_brain(template: Path, brain: Path) -> Path:
    """Replace the test's `brain` with a copy of `template` (same path, so every other fixture still fits)."""
    shutil.rmtree(brain)
    shutil.copytree(template, brain, symlinks=True)
    return brain


@pytest.fixture(scope="session")
def _demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "brain"
    ok(run_bsi("demo", str(root), cwd=root.parent))
    return root


@pytest.fixture
def demo_brain(_demo_template: Path, tmp_path: Path) -> Path:
    """The demo brain built at NOW (`bsi --now NOW demo`)."""
    target = tmp_path / "demo"
    shutil.copytree(_demo_template, target, symlinks=True)
    return target


@pytest.fixture
def legacy_brain(tmp_path: Path) -> Path:
    """A copy of the legacy fixture as the original tools left it (no git repository)."""
    target = tmp_path / "legacy"
    shutil.copytree(LEGACY, target)
    return target


@pytest.fixture
def legacy_git_brain(legacy_brain: Path) -> Iterator[Path]:
    """The legacy copy, `git init`-ed with everything committed."""
    git(legacy_brain, "init", "--quiet")
    _configure_git(legacy_brain)
    git(legacy_brain, "add", "-A")
    git(legacy_brain, "commit", "--quiet", "-m", "legacy brain")
    yield legacy_brain


#: The tests that take long, run first: `--dist worksteal` hands each worker a contiguous share of the collection
#: and an idle one steals another's tail, so a long test collected last would run alone at the end. The first
#: match in this order wins; the rest keep their order. Each comment says what makes the test long; how long
#: depends on the machine and its load (`python -m pytest -q tests -p no:cacheprovider --durations=30`).
LONG_FIRST = (
    "tests/unit/test_hook_index_shadow.py",  # hypothesis-generated brains, the core asked per index go
    "tests/unit/test_state_machine.py",  # hypothesis state machine
    "tests/reliability/test_multi_clone_race.py",  # 6 clones racing 8 rounds
    "tests/reliability/",  # the kill -9 loops and concurrent writers
    "tests/unit/test_scope_casefold.py",  # respelled paths, hypothesis
    "tests/e2e/",  # the real Claude Code against a fake API
)


def _long_first_rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    for rank, prefix in enumerate(LONG_FIRST):
        if path.startswith(prefix):
            return rank
    return len(LONG_FIRST)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (pyproject's addopts) starts one worker more than xdist would (one a core).

    A worker spends much of its time off the CPU: waiting for the `git`, `bsi`, hook and tmux processes
    a test starts, and in the pilot's idle waits of the cockpit tests. A third worker on the 2-core
    machine fills that time (the whole suite ran faster with it, alone on the machine and beside another
    run). `PYTEST_XDIST_AUTO_NUM_WORKERS` still sets the number.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist reads it
    import psutil

    logical = config.option.numprocesses == "logical"
    return (psutil.cpu_count(logical=logical) or psutil.cpu_count() or 1) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the long tests (LONG_FIRST) at the head of the collection, so they never run last."""
    items.sort(key=_long_first_rank)  # stable: every worker collects the same order


def pytest_report_header() -> list[str]:
    """Say which agent markers the run removed from its own environment (tests/agent_markers.py), and where
    the temporary folders went (tests/ramdisk.py)."""
    lines = []
    if AGENT_MARKERS_REMOVED:
        lines.append(f"agent markers removed from the test environment: {', '.join(AGENT_MARKERS_REMOVED)}")
    if ramdisk.MOVED_TO:
        lines.append(f"temporary folders under {ramdisk.MOVED_TO} (tests/ramdisk.py; set TMPDIR to choose)")
    return lines


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The claim files the store builds a Claim from (patched `claim_from_mapping`), in order."""
    from brain_tui.core.records import store as store_mod

    seen: list[str] = []
    real = store_mod.claim_from_mapping

    def counting(data: Any, rel: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(rel)
        return real(data, rel, *args, **kwargs)

    monkeypatch.setattr(store_mod, "claim_from_mapping", counting)
    return seen


@pytest.fixture
def linked(brain: Path, tmp_path: Path) -> Path:
    """A brain with `real/x.md`, `alias -> real`, `link.md -> real/x.md`, `all -> .`, `later -> planned`
    (dangling), `loop -> loop`, `agents-link -> agents` and `ext -> <a folder outside the brain>`: the symlink
    tables of tests/cli/test_symlinks.py and tests/rules/test_scope_conflicts.py."""
    (brain / "real").mkdir()
    (brain / "real" / "x.md").write_text("## Sprint\n")
    (brain / "agents").mkdir(exist_ok=True)
    (brain / "alias").symlink_to("real")
    (brain / "link.md").symlink_to("real/x.md")
    (brain / "all").symlink_to(".")
    (brain / "later").symlink_to("planned")
    (brain / "loop").symlink_to("loop")
    (brain / "agents-link").symlink_to("agents")
    (tmp_path / "outside").mkdir()
    (brain / "ext").symlink_to(tmp_path / "outside")
    return brain
