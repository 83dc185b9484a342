"""Does the parse cache's helper process pay? Cold `bsi claim list --json` with and without it.

On a cold start (no parse cache) `ParseCache.prefetch` hands part of the
files to one helper process on a second core (`core/records/cache_worker.py`). The
helper starts only when the process may use two cores (`spare_core`), so a
run pinned to one core (`os.sched_setaffinity`, Linux) is the same command
without it. Runs alternate with/without so a slow moment of the machine does
not land on one side only; the table shows medians and the spread.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: Cold runs each way (the review asked for 9).
RUNS = 9


def one_core() -> Callable[[], None] | None:
    """A `preexec_fn` pinning the child to one core, or None where affinity cannot be set."""
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        return None
    first = min(os.sched_getaffinity(0))
    return lambda: os.sched_setaffinity(0, {first})


def measure_parse_helper(results: Any, brains: dict[int, Path], command: Sequence[str], env: dict[str, str],
                         clear_cache: Callable[[Path], None], smoke: bool) -> None:
    """Cold `claim list --json` on the largest brain, helper on vs one core (no helper); answers compared.

    Args:
        results: the run's `Results` (rows are put there).
        brains: size → brain folder.
        command: ``bsi --brain … --now …`` up to (not including) the subcommand, minus the brain.
        env: the environment of measured commands.
        clear_cache: deletes a brain's parse cache.
        smoke: one run each way (CI), untimed.
    """
    pin = one_core()
    size = max(brains)
    if pin is None:
        results.notes.append("parse helper: not measured (one core, or no CPU affinity on this system)")
        return
    root = brains[size]
    runs = 1 if smoke else RUNS
    times: dict[str, list[float]] = {"on": [], "off": []}
    answers: dict[str, Any] = {}
    for number in range(runs):
        for mode in (("on", "off") if number % 2 == 0 else ("off", "on")):
            clear_cache(root)
            start = time.perf_counter()
            done = subprocess.run([*command, "--brain", str(root), "claim", "list", "--json"], capture_output=True,
                                  text=True, env=env, timeout=600, check=False,
                                  preexec_fn=pin if mode == "off" else None)  # noqa: PLW1509 - affinity only
            times[mode].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise RuntimeError(f"claim list ({mode}) exited {done.returncode}: {done.stderr.strip()[-300:]}")
            answers.setdefault(mode, json.loads(done.stdout))
    if answers["on"] != answers["off"]:
        raise RuntimeError("claim list answers differ with and without the parse helper")
    for mode, label in (("on", "parse helper on (2 cores)"), ("off", "one core: no parse helper")):
        values = times[mode]
        results.put(f"claim list --json (cold, {label})", size, statistics.median(values) * 1000)
        results.extra[f"cold claim list at {size:,} claims, {label}"] = (
            f"median {statistics.median(values) * 1000:,.0f} ms, min {min(values) * 1000:,.0f}, "
            f"max {max(values) * 1000:,.0f} ({runs} runs)")
