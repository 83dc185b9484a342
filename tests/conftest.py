"""Shared fixtures: the `bsi` runner (a real subprocess) and temporary brains.

Every brain lives under `tmp_path`; the legacy fixtures are copied, never used in place.
Brains are made once per session (init, demo) and copied per test: copying a small
repository is much cheaper than running `git init` and a commit again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.paths import LEGACY

BSI = [sys.executable, "-m", "brain_tui.cli.main"]
#: The default "now" of every CLI call (a Sunday morning, UTC).
NOW = "2026-11-29T10:00:00Z"
GIT_USER = ("Ada Tester", "ada@example.org")


def clean_env(**extra: str) -> dict[str, str]:
    """A process environment with no inherited brain or git settings, UTC and a C locale.

    Args:
        extra: variables to add or override.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BRAIN_", "GIT_"))}
    env.update({"TZ": "UTC", "LC_ALL": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull})
    env.update(extra)
    return env


class Run(NamedTuple):
    """What one `bsi` call gave: exit code, stdout, stderr."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout as one JSON document."""
        return json.loads(self.out)


def run_bsi(*args: str, brain: Path | None = None, now: str | None = NOW, cwd: Path | None = None,
            env: dict[str, str] | None = None, timeout: float = 60) -> Run:
    """Run `bsi [--brain BRAIN] [--now NOW] ARGS…` in a subprocess.

    Args:
        args: the command line after the global flags.
        brain: passed as `--brain` (None: rely on discovery).
        now: passed as `--now` (None: no clock override).
        cwd: working folder (default: the brain, else the current folder).
        env: the environment (default: `clean_env()`).
    """
    cmd = list(BSI)
    if brain is not None:
        cmd += ["--brain", str(brain)]
    if now is not None:
        cmd += ["--now", now]
    proc = subprocess.run([*cmd, *args], capture_output=True, text=True, env=env or clean_env(),
                          cwd=cwd or brain or None, timeout=timeout, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def git(root: Path, *args: str) -> str:
    """stdout of one git command in `root` (raises on failure)."""
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env=clean_env(), check=False)
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def head(root: Path) -> str:
    """The HEAD commit hash."""
    return git(root, "rev-parse", "HEAD").strip()


def last_commit(root: Path) -> tuple[str, list[str]]:
    """(subject, sorted file list) of the HEAD commit."""
    out = git(root, "show", "--name-only", "--format=%s", "HEAD").splitlines()
    return out[0], sorted(line for line in out[1:] if line.strip())


def commits_since(root: Path, rev: str) -> list[str]:
    """Subjects of the commits after `rev`, oldest first."""
    return git(root, "log", "--reverse", "--format=%s", f"{rev}..HEAD").splitlines()


def claim_file(root: Path, sess_id: str) -> Path:
    """Where a product-written claim lives."""
    return root / "claims" / f"{sess_id}.yml"


def load_claim(root: Path, sess_id: str) -> dict[str, Any]:
    """A claim file parsed with the product's bounded loader."""
    from brain_tui.core.yamlio import safe_load_file

    return safe_load_file(claim_file(root, sess_id))


def signal_docs(root: Path) -> list[dict[str, Any]]:
    """Every signal file, parsed, ordered by file name."""
    from brain_tui.core.yamlio import safe_load_file

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


def ok(run: Run) -> str:
    """Assert a call succeeded and return its stdout stripped."""
    assert run.code == 0, f"exit {run.code}\nstdout: {run.out}\nstderr: {run.err}"
    return run.out.strip()


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
