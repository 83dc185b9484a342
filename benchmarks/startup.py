"""What `bsi` costs to start: `--help`, a usage error and the read commands, as CPU time beside `python -c pass`.

The machine running the benchmarks is shared, so these rows are CPU time
(user + system of the child, from `os.wait4`), not wall time: a busy
neighbour slows the wall clock of a process, not the work it does. Each run is
a fresh process; runs of every command alternate with `python -c pass` in the
same loop, so the ratios compare like with like.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The check-scope target of the generated brains (benchmarks/run.py CHECK_SCOPE).
CHECK_SCOPE = "projects/p001/api/routes.py"

#: (row name, arguments after `bsi --brain ROOT --now NOW`, the exit codes that are right); `{sess}` is the
#: first claim `bsi claim list --json` shows.
COMMANDS: tuple[tuple[str, tuple[str, ...], tuple[int, ...]], ...] = (
    ("bsi --help", ("--help",), (0,)),
    ("bsi claim --help", ("claim", "--help"), (0,)),
    ("bsi usage error (exit 64)", ("claim", "open", "--no-such-flag"), (64,)),
    ("bsi claim list --json", ("claim", "list", "--json"), (0,)),
    ("bsi check-scope", ("check-scope", CHECK_SCOPE), (0, 10)),
    ("bsi attention", ("attention",), (0,)),
    ("bsi signal list", ("signal", "list"), (0,)),
    ("bsi gate status", ("gate", "status", "{sess}"), (0,)),
    ("bsi preflight check", ("preflight", "check", "{sess}", CHECK_SCOPE), (0, 1, 2, 3, 4, 5, 6)),
)
#: The rows that only read the brain (the goal "read commands" is the slowest of them).
READ_ROWS = ("bsi claim list --json", "bsi check-scope", "bsi attention", "bsi signal list", "bsi gate status",
             "bsi preflight check")
BARE_ROW = "python -c pass (CPU, beside the start-up rows)"


def cpu_seconds(argv: Sequence[str], env: dict[str, str], ok: Sequence[int]) -> float:
    """User + system CPU seconds of one run of `argv` (its children included).

    Raises:
        RuntimeError: the exit code is not in `ok`.
    """
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.stderr.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in ok:
        raise RuntimeError(f"{' '.join(argv[-4:])} exited {proc.returncode}: {err.decode(errors='replace')[-300:]}")
    return usage.ru_utime + usage.ru_stime


def measure_startup(results: Any, root: Path, size: int, repeat: int, command: Sequence[str], now: str,
                    env: dict[str, str]) -> None:
    """Rows: CPU ms of each command of `COMMANDS` on the brain `root`, and of `python -c pass` beside them."""
    bare_argv = [sys.executable, "-c", "pass"]
    # Every run from bytecode, as a user's `bsi` runs (PYTHONDONTWRITEBYTECODE would compile the sources each
    # time); the bytecode goes beside the brains, not into the source tree.
    env = {key: value for key, value in env.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache-startup")
    base = [*command, "--brain", str(root), "--now", now]
    listed = subprocess.run([*base, "--json", "claim", "list"], capture_output=True, text=True, env=env,
                            check=True, timeout=120)
    sess = json.loads(listed.stdout)["claims"][0]["sess_id"]
    runs = {name: [*base, *(arg.replace("{sess}", sess) for arg in args)] for name, args, _ in COMMANDS}
    ok = {name: codes for name, _, codes in COMMANDS}
    for name, argv in runs.items():  # warm-up: bytecode, page cache, the parse cache of the brain
        cpu_seconds(argv, env, ok[name])
    cpu_seconds(bare_argv, env, (0,))
    times: dict[str, list[float]] = {name: [] for name in [BARE_ROW, *runs]}
    for _ in range(max(repeat, 3) * 2):
        times[BARE_ROW].append(cpu_seconds(bare_argv, env, (0,)))
        for name, argv in runs.items():
            times[name].append(cpu_seconds(argv, env, ok[name]))
    for name, values in times.items():
        results.put(name, size, statistics.median(values) * 1000, "CPU ms")


def startup_ratio(results: Any, names: Sequence[str], size: int) -> float | None:
    """The slowest of `names` at `size` divided by `python -c pass` of the same run (None: not measured)."""
    bare: float | None = results.get(BARE_ROW, size)
    values: list[float | None] = [results.get(name, size) for name in names]
    measured = [value for value in values if value is not None]
    if not bare or len(measured) != len(values):
        return None
    return max(measured) / bare
