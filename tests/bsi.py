"""The one way tests run `bsi` and `git`, and read the commits they leave.

`run_bsi` runs `bsi [--brain B] [--now N] ARGS…` in this process (tests/inproc.py: the call's
environment, folder and stdin swapped in, stdout/stderr captured, the exit code returned) or, with
`process=True` or `BSI_TEST_PROCESS=1` in the environment, in a subprocess; `clean_env` builds the
environment (which inherited variables are dropped, a pinned zone/locale/git config, a git identity).
The suites' variants are parameters of these two: `bsi_at` gives a suite its own clock and defaults,
`clean_env(identity=…)` gives a racer its own name in the commits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, NamedTuple

BSI = [sys.executable, "-m", "brain_tui.cli.main"]
#: The default "now" of every CLI call (a Sunday morning, UTC).
NOW = "2026-11-29T10:00:00Z"
#: What `clean_env` drops by default: every inherited brain or git setting.
BRAIN_AND_GIT = ("BRAIN_*", "GIT_*")


def clean_env(*, drop: tuple[str, ...] = BRAIN_AND_GIT, pin: bool = True, identity: str | None = None,
              **extra: str) -> dict[str, str]:
    """The process environment of one test call: the inherited one minus `drop`, plus the settings asked for.

    Args:
        drop: patterns (`fnmatch`, case-sensitive) of inherited variables to remove.
        pin: set TZ=UTC, a C.UTF-8 locale, and no system or global git configuration.
        identity: git author and committer `identity` <identity@example.org> (lower-cased).
        extra: variables to add or override, last.
    """
    env = {k: v for k, v in os.environ.items() if not any(fnmatchcase(k, pattern) for pattern in drop)}
    if pin:
        env.update({"TZ": "UTC", "LC_ALL": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull})
    if identity is not None:
        email = f"{identity.lower()}@example.org"
        env.update({"GIT_AUTHOR_NAME": identity, "GIT_AUTHOR_EMAIL": email,
                    "GIT_COMMITTER_NAME": identity, "GIT_COMMITTER_EMAIL": email})
    env.update(extra)
    return env


#: The environment of the suites that keep what they inherit but the brain root and clock, committing as Test.
INHERITED_ENV = clean_env(drop=("BRAIN_ROOT", "BRAIN_NOW"), pin=False, identity="Test")


class Run(NamedTuple):
    """What one `bsi` call gave: exit code, stdout, stderr."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout as one JSON document."""
        return json.loads(self.out)


def bsi_command(*args: str, brain: Path | None = None, now: str | None = None,
                python: tuple[str, ...] = ()) -> list[str]:
    """The command line `bsi [--brain BRAIN] [--now NOW] ARGS…` (for a process the test drives itself).

    Args:
        args: the command line after the global flags.
        brain: passed as `--brain`.
        now: passed as `--now` (None or empty: no clock override).
        python: interpreter options before `-m` (e.g. `-X importtime`).
    """
    cmd = [BSI[0], *python, *BSI[1:]]
    if brain is not None:
        cmd += ["--brain", str(brain)]
    if now:
        cmd += ["--now", now]
    return [*cmd, *args]


def run_bsi(*args: str, brain: Path | None = None, now: str | None = NOW, cwd: Path | None = None,
            env: Mapping[str, str] | None = None, timeout: float | None = 60, input: str | bytes | None = None,
            process: bool = False) -> Run:
    """Run `bsi [--brain BRAIN] [--now NOW] ARGS…` and return what it gave.

    Args:
        args: the command line after the global flags.
        brain: passed as `--brain` (None: rely on discovery).
        now: passed as `--now` (None or empty: no clock override).
        cwd: working folder (default: the brain, else the current folder).
        env: the environment (default: `clean_env()`).
        timeout: seconds before the call counts as hung and fails the test (None: wait for ever); in
            process, a watchdog raises in the call (tests/inproc.py: it cannot be killed).
        input: stdin (default: empty).
        process: run a real `bsi` process (say why at the call: a timeout, a signal, `-X` options, …);
            `BSI_TEST_PROCESS=1` makes every call one.
    """
    command = bsi_command(*args, brain=brain, now=now)
    environ = dict(clean_env() if env is None else env)
    folder = cwd or brain or None
    from tests.inproc import as_text, call_main

    if not (process or os.environ.get("BSI_TEST_PROCESS") == "1"):
        return Run(*call_main(command[len(BSI):], environ, folder, input, timeout))
    proc = subprocess.run(command, capture_output=True, env=environ, cwd=folder, timeout=timeout, check=False,
                          input=input.encode() if isinstance(input, str) else input or b"")
    return Run(proc.returncode, as_text(proc.stdout), as_text(proc.stderr))


def bsi_at(default_now: str | None, **defaults: Any) -> Callable[..., Run]:
    """A `bsi(brain, *args, now=default_now, **options)` runner: `run_bsi` with the brain first and own defaults.

    Args:
        default_now: the suite's clock (None: no `--now` unless a call passes one).
        defaults: `run_bsi` keywords for every call (`env`, `timeout`, …); a call's own keywords win.
    """

    def bsi(brain: Path, *args: str, now: str | None = default_now, **options: Any) -> Run:
        return run_bsi(*args, brain=brain, now=now, **{**defaults, **options})

    return bsi


def ok(run: Run) -> str:
    """Assert a call succeeded and return its stdout stripped."""
    assert run.code == 0, f"exit {run.code}\nstdout: {run.out}\nstderr: {run.err}"
    return run.out.strip()


def git(root: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """stdout of one git command in `root` (raises on failure).

    Args:
        root: the working folder.
        args: the git command line.
        env: the environment (default: `clean_env()`).
    """
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          env=clean_env() if env is None else env, check=False)
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
