"""Benchmarks of brain-tui on synthetic brains: medians, and the goals of issue 7 as ratios and limits.

    python benchmarks/run.py                          # sizes 10, 1000, 10000
    python benchmarks/run.py --sizes 10,100,1000,10000,50000 --markdown benchmarks/RESULTS.md
    python benchmarks/run.py --smoke                  # CI: everything once at the smallest size, untimed
    python benchmarks/run.py --only-mcp --sizes 10    # `bsi mcp` start-up, and check_scope at 10 / 1,000 open claims
    python benchmarks/run.py --only-startup --sizes 10  # `bsi --help`, usage error, reads: CPU ÷ python -c pass

Every measurement runs several times (``--repeat``) and the table shows the
median. Subprocess measurements alternate between sizes, so a slow moment of
the machine does not land on one size only. "warm" means the parse cache under
``.brain/`` exists and the page cache is warm; "cold" means the parse cache was
deleted first (every claim file is parsed; the OS page cache is still warm).
The brains are built by ``benchmarks/generate.py`` at a fixed now,
2026-11-29T10:00:00+00:00, passed as ``--now`` to every command.

`--smoke` never fails on timing: it exits non-zero only when a command fails
or answers something wrong (so the benchmarks cannot rot).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cockpit_probe import history_goal_lines, history_rows
from generate import DEFAULT_NOW, generate
from history import build as build_history
from history import goal_lines, measure_history
from mcp_check import HELD_ROW, measure_rows
from mcp_start import measure_mcp
from startup import READ_ROWS, measure_startup, startup_ratio

NOW = DEFAULT_NOW
DEFAULT_SIZES = (10, 1000, 10000)
#: Above this size only generation and the CLI reads are measured (a cold index or cockpit would take minutes).
LIGHT_ABOVE = 10_000
CHECK_SCOPE = "projects/p001/api/routes.py"
CACHE_FILES = ("parse-cache.sqlite3", "parse-cache.sqlite3-wal", "parse-cache.sqlite3-shm")


class BenchError(RuntimeError):
    """A command failed or answered something wrong: the benchmark (and --smoke) must fail."""


# --------------------------------------------------------------------------- helpers


def bsi_command() -> list[str]:
    """The `bsi` console script next to this interpreter, else ``python -m brain_tui.cli.main``."""
    script = Path(sys.executable).with_name("bsi")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "brain_tui.cli.main"]


def child_env() -> dict[str, str]:
    """The environment of measured commands: no brain or clock leaking in from the caller."""
    env = {k: v for k, v in os.environ.items() if k not in ("BRAIN_ROOT", "BRAIN_NOW")}
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def run_bsi(root: Path, *args: str, ok: Sequence[int] = (0,)) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run one `bsi` command on `root`; answer its wall time.

    Raises:
        BenchError: the exit code is not in `ok`.
    """
    cmd = [*bsi_command(), "--brain", str(root), "--now", NOW, *args]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=600, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        raise BenchError(f"{' '.join(cmd[-len(args) - 4:])} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return elapsed, done


def clear_cache(root: Path) -> None:
    """Delete the parse cache (a "cold" start)."""
    for name in CACHE_FILES:
        with contextlib.suppress(FileNotFoundError):
            (root / ".brain" / name).unlink()


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def machine() -> dict[str, str]:
    """nproc, CPU model, memory, Python, OS, filesystem of the work folder."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except (OSError, ValueError):
        pass
    return {
        "nproc": str(os.cpu_count()),
        "cpu": model,
        "memory": memory,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": f"{platform.system()} {platform.release()}",
    }


def _load() -> str:
    """The 1-minute load average, as text."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


def filesystem_of(path: Path) -> str:
    """The filesystem type holding `path` (from /proc/mounts), or "unknown"."""
    best, kind = "", "unknown"
    try:
        target = str(path.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) >= 3 and (target == parts[1] or target.startswith(parts[1].rstrip("/") + "/")) \
                    and len(parts[1]) > len(best):
                best, kind = parts[1], parts[2]
    except OSError:
        pass
    return kind


# --------------------------------------------------------------------------- results


@dataclass
class Results:
    """Medians per measurement and size, plus notes."""

    sizes: list[int]
    rows: dict[str, dict[int, float]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def put(self, name: str, size: int, value: float, unit: str = "ms") -> None:
        self.rows.setdefault(name, {})[size] = value
        self.units[name] = unit

    def get(self, name: str, size: int) -> float | None:
        value = self.rows.get(name, {}).get(size)
        return None if value is None or value != value else value


# --------------------------------------------------------------------------- measurements


def measure_cli(results: Results, brains: dict[int, Path], repeat: int, counts: dict[int, dict[str, int]],
                smoke: bool) -> None:
    """`bsi claim list --json`, `bsi check-scope`, `bsi claim list --all`, warm and cold, alternating sizes."""
    warm: dict[tuple[str, int], list[float]] = {}
    sizes = list(brains)
    for size, root in brains.items():  # warm-up: builds the cache, settles every entry, checks the answers
        _elapsed, done = run_bsi(root, "claim", "list", "--all", "--json")
        doc = json.loads(done.stdout)
        if len(doc["claims"]) != counts[size]["claims"] or doc["corrupt"]:
            raise BenchError(f"{size}: claim list --all gave {len(doc['claims'])} claims, "
                             f"{len(doc['corrupt'])} corrupt (expected {counts[size]['claims']}, 0)")
        _elapsed, done = run_bsi(root, "claim", "list", "--json")
        listed = json.loads(done.stdout)["claims"]
        blocking = {"open", "waiting_human", "paused", "stale"}
        if len(listed) != counts[size]["blocking"] or any(c["status"] not in blocking for c in listed):
            raise BenchError(f"{size}: claim list gave {len(listed)} claims, expected {counts[size]['blocking']}")
    commands: list[tuple[str, tuple[str, ...], Sequence[int]]] = [
        ("claim list --json", ("claim", "list", "--json"), (0,)),
        ("check-scope", ("check-scope", CHECK_SCOPE, "--json"), (0, 10)),
        ("claim list --all --json", ("claim", "list", "--all", "--json"), (0,)),
    ]
    for _ in range(repeat):
        for name, args, ok in commands:
            for size in sizes:
                if name == "claim list --all --json" and size > LIGHT_ABOVE and not smoke:
                    continue
                elapsed, done = run_bsi(brains[size], *args, ok=ok)
                if name == "check-scope":
                    json.loads(done.stdout)  # must be one JSON document
                warm.setdefault((name, size), []).append(elapsed)
    for (name, size), values in warm.items():
        results.put(f"{name} (warm)", size, median(values) * 1000)

    cold: dict[tuple[str, int], list[float]] = {}
    for number in range(repeat):
        for name, args, ok in commands[:2]:
            for size in sizes:
                if size > LIGHT_ABOVE and number > 0:  # a cold start on 50,000 claims takes a while: once
                    continue
                clear_cache(brains[size])
                elapsed, _done = run_bsi(brains[size], *args, ok=ok)
                cold.setdefault((name, size), []).append(elapsed)
    for (name, size), values in cold.items():
        results.put(f"{name} (cold)", size, median(values) * 1000)
    for root in brains.values():  # leave every brain warm for what follows
        run_bsi(root, "claim", "list", "--all", "--json")


def measure_index(results: Results, brains: dict[int, Path], repeat: int) -> None:
    """`bsi index --no-commit`, warm (the first run writes BRAIN-INDEX.md; later runs find it current)."""
    for size, root in brains.items():
        if size > LIGHT_ABOVE:
            continue
        times = []
        for _ in range(repeat):
            elapsed, _done = run_bsi(root, "--no-commit", "index")
            times.append(elapsed)
        text = (root / "BRAIN-INDEX.md").read_text(encoding="utf-8")
        if "<!-- bsi:generated:start -->" not in text or "## Claims actifs" not in text:
            raise BenchError(f"{size}: bsi index wrote no generated block")
        results.put("bsi index --no-commit (warm)", size, median(times) * 1000)
        clear_cache(root)
        elapsed, _done = run_bsi(root, "--no-commit", "index")
        results.put("bsi index --no-commit (cold)", size, elapsed * 1000)


def measure_conflicts(results: Results, brains: dict[int, Path], queries: int) -> None:
    """In-process conflict checks against every claim of the brain made blocking (index build excluded)."""
    from dataclasses import replace

    from brain_tui.core.brain import Brain
    from brain_tui.core.records.statuses import BLOCKING_STATUSES
    from brain_tui.core.rules import conflicts

    for size, root in brains.items():
        if size > LIGHT_ABOVE:
            continue
        snap = Brain(root, now=NOW, commit=False).snapshot()
        all_blocking = replace(snap, claims=tuple(
            c if c.status in BLOCKING_STATUSES else replace(c, status="open") for c in snap.claims))
        start = time.perf_counter()
        index = conflicts.blocking_index(all_blocking)
        build = time.perf_counter() - start
        rng = random.Random(size)
        candidates = [c for c in all_blocking.claims if c.is_blocking and c.scope]
        picks = [rng.choice(candidates) for _ in range(queries)]
        per_check: list[float] = []
        hits: list[int] = []
        for claim in picks:
            start = time.perf_counter()
            found = conflicts.find_conflicts(all_blocking, claim.scope, parent=claim.parent,
                                            satellite_type=claim.satellite_type, index=index)
            per_check.append(time.perf_counter() - start)
            hits.append(len(found))
            if claim.parent is None and not found:
                raise BenchError(f"{size}: a blocking claim does not conflict with itself ({claim.sess_id})")
        conflicts.find_conflicts(all_blocking, claim.scope)  # without `index=`: the snapshot's own, built once
        again = []
        for claim in picks[:50]:
            start = time.perf_counter()
            conflicts.find_conflicts(all_blocking, claim.scope, parent=claim.parent)
            again.append(time.perf_counter() - start)
        results.put("conflict check without index= (memoised per snapshot)", size, median(again) * 1e6, "µs")
        results.put("conflict check, per check (in-process)", size, median(per_check) * 1e6, "µs")
        results.put("conflict check, p95 per check", size,
                    sorted(per_check)[max(0, int(len(per_check) * 0.95) - 1)] * 1e6, "µs")
        results.put("conflict check, claims hit per check (median)", size, median(hits), "claims")
        results.put("blocking claims in the index", size, len(index), "claims")
        results.put("ScopeIndex build (excluded above)", size, build * 1000)


def measure_imports(results: Results, root: Path, size: int, repeat: int) -> None:
    """`bsi --help` wall time and what `bsi claim list` imports (python -X importtime)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run([*bsi_command(), "--help"], capture_output=True, text=True, env=child_env(),
                              check=False, timeout=120)
        times.append(time.perf_counter() - start)
        if done.returncode not in (0, 64) or "claim" not in (done.stdout + done.stderr):
            raise BenchError(f"bsi --help exited {done.returncode}")
    results.put("bsi --help (start-up)", size, median(times) * 1000)
    cmd = [sys.executable, "-X", "importtime", "-m", "brain_tui.cli.main", "--brain", str(root), "--now", NOW,
           "claim", "list", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), check=False, timeout=120)
    if done.returncode != 0:
        raise BenchError(f"-X importtime claim list exited {done.returncode}: {done.stderr[-300:]}")
    total = 0
    loaded: set[str] = set()
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if match:
            loaded.add(match.group(4))
            total += int(match.group(1))
    results.put("imports of `bsi claim list` (-X importtime, self total)", size, total / 1000)
    heavy = [name for name in ("textual", "psutil", "git", "ruamel.yaml", "yaml", "sqlite3", "watchfiles")
             if name in loaded]
    results.extra["imported by `bsi claim list`"] = ", ".join(heavy) or "none of the heavy ones"


HOOK_AGENT = "bench-agent-0001"
HOOK_SCOPE = "bench-hook/"


def hook_env(workdir: Path) -> dict[str, str]:
    """The hook's environment: unbound unless by the event, bytecode cached (an installed package has it)."""
    env = {k: v for k, v in child_env().items()
           if k not in ("BSI_SESSION", "CLAUDE_CODE_SESSION_ID", "BSI_HOOKS", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    return env


def measure_hook(results: Results, brains: dict[int, Path], repeat: int, workdir: Path, smoke: bool) -> None:
    """`bsi hook pre-tool-use` for a bound Edit (and a bound Bash write) inside the claim's scope, beside
    `python -c pass` (same run).

    Each brain gets one claim on `bench-hook/` bound to an agent session; the hook index is left to settle
    (2 s) and is written by a first hook run, as it would be after any change. Then the sizes and the bare
    interpreter alternate. A second row measures the same hook when the index is stale (the core decides).
    """
    env = hook_env(workdir)
    events: dict[int, bytes] = {}
    shell: dict[int, bytes] = {}
    for size, root in brains.items():
        run_bsi(root, "--no-commit", "claim", "open", "--scope", HOOK_SCOPE, "--story", "hook bench",
                "--agent-session", HOOK_AGENT)
        events[size] = json.dumps({
            "session_id": HOOK_AGENT, "transcript_path": "/tmp/bench.jsonl", "cwd": str(root),
            "hook_event_name": "PreToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": str(root / HOOK_SCOPE / "x.py"), "old_string": "a", "new_string": "b"},
        }).encode()
        shell[size] = json.dumps({
            "session_id": HOOK_AGENT, "transcript_path": "/tmp/bench.jsonl", "cwd": str(root),
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": f"echo done >> {HOOK_SCOPE}x.py && ls {HOOK_SCOPE}"},
        }).encode()
    if not smoke:
        time.sleep(2.1)  # the index of a brain changed less than 2 s ago is racy (core/sessions/hook_index.py)

    def hook(size: int, given: dict[int, bytes] = events) -> float:
        cmd = [*bsi_command(), "--brain", str(brains[size]), "--now", NOW, "hook", "pre-tool-use"]
        start = time.perf_counter()
        done = subprocess.run(cmd, input=given[size], capture_output=True, env=env, timeout=120, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode != 0 or done.stdout:
            raise BenchError(f"{size}: bsi hook pre-tool-use exited {done.returncode}: "
                             f"{(done.stdout + done.stderr).decode(errors='replace')[-400:]}")
        return elapsed

    def bare() -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True, timeout=60)
        return time.perf_counter() - start

    for size in brains:  # warm-up: writes the index (and the bytecode cache)
        hook(size)
        hook(size)
        if not smoke and not (brains[size] / ".brain" / "hook-index.json").is_file():
            raise BenchError(f"{size}: the hook wrote no index")
    bare()
    times: dict[int, list[float]] = {}
    shell_times: dict[int, list[float]] = {}
    bare_times: list[float] = []
    for _ in range(max(repeat, 3) * 3):
        bare_times.append(bare())
        for size in brains:
            times.setdefault(size, []).append(hook(size))
            shell_times.setdefault(size, []).append(hook(size, shell))
    for size, values in times.items():
        results.put("bsi hook pre-tool-use, bound Edit in scope", size, median(values) * 1000)
        results.put("bsi hook pre-tool-use, bound Bash write in scope", size, median(shell_times[size]) * 1000)
        results.put("python -c pass (same run)", size, median(bare_times) * 1000)
    for size, root in brains.items():
        if size > LIGHT_ABOVE and not smoke:
            continue
        stale = []
        for _ in range(max(1, repeat)):
            (root / ".brain" / "hook-index.json").unlink(missing_ok=True)
            stale.append(hook(size))
        results.put("bsi hook pre-tool-use, index stale (the core decides)", size, median(stale) * 1000)


def cockpit_available() -> str | None:
    """None when `brain_tui.tui.app` imports, else why not."""
    done = subprocess.run([sys.executable, "-c", "import brain_tui.tui.app"], capture_output=True, text=True,
                          env=child_env(), check=False, timeout=120)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["import failed"])[-1]
        return f"brain_tui.tui.app does not import: {last}"
    return None


def measure_cockpit(results: Results, brains: dict[int, Path], repeat: int, smoke: bool) -> None:
    """First paint, one keystroke, refresh after one file change and RSS, each in a fresh process."""
    reason = cockpit_available()
    if reason is not None:
        results.notes.append(f"cockpit not measured: {reason}")
        return
    for size, root in brains.items():
        if size > LIGHT_ABOVE and not smoke:
            continue
        samples: list[dict[str, Any]] = []
        for number in range(repeat):
            for live in (False, True):
                cmd = [sys.executable, str(Path(__file__).resolve().with_name("cockpit_probe.py")), str(root),
                       "--seed", str(number)]
                if live:
                    cmd.append("--live")
                done = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), check=False,
                                      timeout=300)
                if done.returncode != 0 or not done.stdout.strip():
                    raise BenchError(f"cockpit probe ({'live' if live else 'manual'}) on {size} failed: "
                                     f"{done.stderr.strip()[-800:]}")
                sample = json.loads(done.stdout.strip().splitlines()[-1])
                sample["live"] = live
                samples.append(sample)
        manual = [s for s in samples if not s["live"]]
        live_runs = [s for s in samples if s["live"]]
        results.put("cockpit first paint, process start → screen", size,
                    median([s["process_to_paint_s"] for s in manual]) * 1000)
        results.put("cockpit first paint, in-process (imports excluded)", size,
                    median([s["paint_s"] for s in manual]) * 1000)
        results.put("cockpit keystroke → screen (down, CPU time)", size,
                    median([s["key_s"] for s in manual]) * 1000)
        results.put("cockpit refresh after 1 file change (work)", size,
                    median([s["refresh_s"] for s in manual]) * 1000)
        results.put("files parsed by that refresh", size, max(s["refresh_parsed"] for s in manual), "files")
        if all(s.get("live_latency_s") is not None for s in live_runs):
            results.put("cockpit 1 file change → screen (live watcher)", size,
                        median([s["live_latency_s"] for s in live_runs]) * 1000)
        else:
            results.notes.append(f"{size}: the live watcher did not show the change within the timeout")
        results.put("cockpit RSS idle (full snapshot shown)", size, max(s["rss_idle_mb"] for s in samples), "MB")
        results.put("cockpit RSS after paint and refresh", size, max(s["rss_mb"] for s in samples), "MB")
        results.put("cockpit RSS after one write (approve)", size,
                    max(s["rss_after_write_mb"] for s in manual), "MB")
        results.extra[f"cockpit write measured at {size:,} claims"] = ", ".join(
            sorted({str(s.get("write")) for s in manual}))
        for sample in manual:
            if sample["refresh_parsed"] != 1 or not sample["refresh_seen"]:
                raise BenchError(f"{size}: the refresh after one change parsed {sample['refresh_parsed']} files "
                                 f"(seen: {sample['refresh_seen']})")


# --------------------------------------------------------------------------- goals & output

GOALS: list[tuple[str, str, Callable[[Results, int, int], float | None], float, str]] = [
    ("claim list --json, 10k ÷ 10 warm", "≤ 3×",
     lambda r, big, small: _ratio(r, "claim list --json (warm)", big, small), 3.0, "×"),
    ("check-scope, 10k ÷ 10 warm", "≤ 2×",
     lambda r, big, small: _ratio(r, "check-scope (warm)", big, small), 2.0, "×"),
    ("claim list --json, 10k cold", "≤ 1.5 s",
     lambda r, big, small: _ms(r, "claim list --json (cold)", big), 1500.0, "ms"),
    ("check-scope, 10k cold", "≤ 1.5 s",
     lambda r, big, small: _ms(r, "check-scope (cold)", big), 1500.0, "ms"),
    ("conflict check vs 10k blocking claims", "< 1 ms per check",
     lambda r, big, small: _us_as_ms(r, "conflict check, per check (in-process)", big), 1.0, "ms"),
    ("cockpit first paint, 10k warm", "< 1 s",
     lambda r, big, small: _ms(r, "cockpit first paint, process start → screen", big), 1000.0, "ms"),
    ("cockpit refresh after 1 file change (work)", "< 200 ms, 1 file parsed",
     lambda r, big, small: _refresh(r, big), 200.0, "ms"),
    ("cockpit 1 file change → screen (live watcher)", "< 200 ms",
     lambda r, big, small: _ms(r, "cockpit 1 file change → screen (live watcher)", big), 200.0, "ms"),
    ("cockpit keystroke → screen", "< 50 ms",
     lambda r, big, small: _ms(r, "cockpit keystroke → screen (down, CPU time)", big), 50.0, "ms"),
    ("cockpit memory, 10k", "< 150 MB RSS",
     lambda r, big, small: r.get("cockpit RSS after paint and refresh", big), 150.0, "MB"),
    ("cockpit memory after a write, 10k", "< 150 MB RSS",
     lambda r, big, small: r.get("cockpit RSS after one write (approve)", big), 150.0, "MB"),
    ("hook pre-tool-use, 10k ÷ 10", "≤ 1.5×",
     lambda r, big, small: _ratio(r, "bsi hook pre-tool-use, bound Edit in scope", big, small), 1.5, "×"),
    ("hook pre-tool-use 10k ÷ python -c pass", "≤ 3×",
     lambda r, big, small: _hook_vs_bare(r, big), 3.0, "×"),
    ("hook pre-tool-use, bound Bash write 10k ÷ python -c pass", "≤ 3×",
     lambda r, big, small: _hook_vs_bare(r, big, "bsi hook pre-tool-use, bound Bash write in scope"), 3.0, "×"),
    ("bsi index, 10k warm", "< 1 s",
     lambda r, big, small: _ms(r, "bsi index --no-commit (warm)", big), 1000.0, "ms"),
    ("bsi mcp answers initialize (process start →)", "< 1 s",
     lambda r, big, small: _ms(r, "bsi mcp: start → initialize answered", small), 1000.0, "ms"),
    ("bsi mcp check_scope at 1,000 open claims (held path, stdio)", "≤ 5 ms",
     lambda r, big, small: _ms(r, HELD_ROW, 1000), 5.0, "ms"),
    ("start-up: bsi --help ÷ python -c pass (CPU)", "≤ 5×",
     lambda r, big, small: startup_ratio(r, ["bsi --help"], small), 5.0, "×"),
    ("start-up: bsi claim --help ÷ python -c pass (CPU)", "≤ 5×",
     lambda r, big, small: startup_ratio(r, ["bsi claim --help"], small), 5.0, "×"),
    ("start-up: usage error (exit 64) ÷ python -c pass (CPU)", "≤ 5×",
     lambda r, big, small: startup_ratio(r, ["bsi usage error (exit 64)"], small), 5.0, "×"),
    ("start-up: slowest read at 10 claims ÷ python -c pass (CPU)", "≤ 5×",
     lambda r, big, small: startup_ratio(r, READ_ROWS, small), 5.0, "×"),
]


def _ratio(r: Results, name: str, big: int, small: int) -> float | None:
    a, b = r.get(name, big), r.get(name, small)
    return None if a is None or b is None or b == 0 else a / b


def _hook_vs_bare(r: Results, size: int, row: str = "bsi hook pre-tool-use, bound Edit in scope") -> float | None:
    hook, bare = r.get(row, size), r.get("python -c pass (same run)", size)
    return None if hook is None or not bare else hook / bare


def _ms(r: Results, name: str, size: int) -> float | None:
    return r.get(name, size)


def _us_as_ms(r: Results, name: str, size: int) -> float | None:
    value = r.get(name, size)
    return None if value is None else value / 1000


def _refresh(r: Results, size: int) -> float | None:
    value = r.get("cockpit refresh after 1 file change (work)", size)
    parsed = r.get("files parsed by that refresh", size)
    if value is None:
        return None
    return value if parsed == 1 else float("inf")


def goal_rows(results: Results) -> list[list[str]]:
    """One row per goal: what, target, measured, met?"""
    big = 10_000 if 10_000 in results.sizes else max(results.sizes)
    small = 10 if 10 in results.sizes else min(results.sizes)
    rows = []
    for name, target, compute, limit, unit in GOALS:
        value = compute(results, big, small)
        if value is None:
            rows.append([name, target, "not measured", "—"])
            continue
        shown = f"{value:.2f}×" if unit == "×" else f"{value:.3g} {unit}" if unit == "ms" and value < 10 \
            else f"{value:.0f} {unit}"
        if unit == "ms" and limit == 1.0:
            shown = f"{value * 1000:.0f} µs"
        met = value <= limit if "≤" in target else value < limit
        rows.append([name.replace("10k", f"{big:,}").replace("÷ 10", f"÷ {small:,}"), target, shown,
                     "yes" if met else "**no**"])
    return rows


def _cell(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit in ("claims", "files"):
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def render_markdown(results: Results, info: dict[str, str], args: argparse.Namespace) -> str:
    """The results as markdown: machine, medians per size, goals."""
    sizes = results.sizes
    lines = ["# Benchmark results", ""]
    lines.append(f"Machine: {info['nproc']} CPU ({info['cpu']}), {info['memory']} RAM, {info['os']}, "
                 f"{info['python']}; brains on {info['fs']}. Load average (1 min) at start "
                 f"{info.get('load_start', '?')}, at end {info.get('load_end', '?')}: other work on the "
                 f"machine shows directly in these numbers.")
    lines.append("")
    lines.append(f"Command: `python benchmarks/run.py --sizes {','.join(str(s) for s in sizes)} "
                 f"--repeat {args.repeat}` — medians of {args.repeat} runs "
                 f"(cold runs above {LIGHT_ABOVE:,} claims: 1 run). `--now {NOW}`.")
    lines.append("")
    lines.append("## Goals (issue 7)")
    lines.append("")
    lines.append("| goal | target | measured | met |")
    lines.append("|---|---|---|---|")
    for row in goal_rows(results):
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("## Medians")
    lines.append("")
    lines.append("| measurement | unit | " + " | ".join(f"{s:,} claims" for s in sizes) + " |")
    lines.append("|---|---|" + "---|" * len(sizes))
    for name, per_size in results.rows.items():
        unit = results.units[name]
        lines.append(f"| {name} | {unit} | " + " | ".join(_cell(per_size.get(s), unit) for s in sizes) + " |")
    lines.append("")
    lines.append("How to read it: *warm* = the parse cache under `.brain/` exists (and the OS page cache is warm); "
                 "*cold* = the parse cache was deleted first, so every claim file is parsed. CLI times are wall "
                 "times of a whole `bsi` process (start-up included). The conflict check runs in-process against "
                 "every claim of the brain made blocking, through a prebuilt `ScopeIndex`. Cockpit figures come "
                 "from `App.run_test` in a fresh process per run: first paint is measured from process creation; "
                 "a keystroke is the CPU time the app spends on `down` (Pilot's own idle waits excluded); "
                 "*refresh (work)* is `refresh_snapshot()` plus the render after one claim file was rewritten; "
                 "*live watcher* is the wall time from that rewrite until the app shows it, with watching on.")
    if results.extra:
        lines.append("")
        for key, value in results.extra.items():
            lines.append(f"- {key}: {value}")
    if results.notes:
        lines.append("")
        for note in results.notes:
            lines.append(f"- {note}")
    return "\n".join(lines) + "\n"


def render_history(history: Results) -> str:
    """The `--history` rows: medians per size and the goals (issue 18: cost follows the live claims)."""
    sizes = history.sizes
    lines = ["", "## A year of history (`--history`, git brains built in one commit)", ""]
    lines.append("| measurement | unit | " + " | ".join(f"{s:,} claims" for s in sizes) + " |")
    lines.append("|---|---|" + "---|" * len(sizes))
    for name, per_size in history.rows.items():
        unit = history.units[name]
        lines.append(f"| {name} | {unit} | " + " | ".join(_cell(per_size.get(s), unit) for s in sizes) + " |")
    if len(sizes) > 1:
        lines.append("")
        lines.extend(goal_lines(history.get, sizes))
        lines.extend(history_goal_lines(history.get, sizes))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- main


def build_brains(workdir: Path, sizes: Sequence[int],
                 results: Results) -> tuple[dict[int, Path], dict[int, dict[str, int]]]:
    brains: dict[int, Path] = {}
    counts: dict[int, dict[str, int]] = {}
    for size in sizes:
        root = workdir / f"brain-{size}"
        if root.exists():
            shutil.rmtree(root)
        start = time.perf_counter()
        counts[size] = generate(root, size, now=NOW)
        results.put("generate (benchmarks/generate.py, in-process)", size, (time.perf_counter() - start) * 1000)
        brains[size] = root
    return brains, counts


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks; print the table; exit 1 when a command failed (never on timing)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=None, help="comma-separated claim counts (default 10,1000,10000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (median shown)")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table as markdown")
    parser.add_argument("--smoke", action="store_true", help="everything once at the smallest size, untimed")
    parser.add_argument("--workdir", help="where to build the brains (default: a temporary folder, removed)")
    parser.add_argument("--no-cockpit", action="store_true", help="skip the cockpit measurements")
    parser.add_argument("--no-hook", action="store_true", help="skip the hook measurements")
    parser.add_argument("--only-hook", action="store_true", help="only generation and the hook measurements")
    parser.add_argument("--only-mcp", action="store_true",
                        help="only generation and `bsi mcp` start-up (initialize, first tools/list)")
    parser.add_argument("--history", metavar="SIZES", default=None,
                        help="also the agent's loop on git brains of these sizes (e.g. 10,100000), in one run")
    parser.add_argument("--only-history", action="store_true", help="only the --history rows")
    parser.add_argument("--only-startup", action="store_true",
                        help="only generation and `bsi` start-up: --help, a usage error, reads (CPU time)")
    args = parser.parse_args(argv)

    sizes = sorted({int(s) for s in args.sizes.split(",")}) if args.sizes else list(DEFAULT_SIZES)
    if args.smoke:
        sizes = [min(sizes)] if args.sizes else [10]
        args.repeat = 1
    if not sizes or min(sizes) < 1 or args.repeat < 1:
        parser.error("sizes and --repeat must be positive")
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="brain-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    info = {**machine(), "fs": filesystem_of(workdir), "load_start": _load()}
    results = Results(sizes)
    history_sizes = sorted({int(s) for s in args.history.split(",")}) if args.history else []
    if args.smoke:
        history_sizes = [sizes[0]]
    history = Results(history_sizes)
    began = time.perf_counter()
    try:
        brains, counts = build_brains(workdir, sizes, results)
        if not args.smoke:
            time.sleep(2.1)  # let the fresh files leave the parse cache's racy window (core/records/cache.py)
        only = args.only_hook or args.only_mcp or args.only_startup or args.only_history
        if history_sizes:
            measure_history(history, workdir, bsi_command(), child_env(), args.repeat, history_sizes)
            if not args.no_cockpit and not args.smoke and cockpit_available() is None:  # --smoke: measure_cockpit's
                history_rows(history.put, build_history(workdir, history_sizes), min(args.repeat, 3), child_env())
        if args.only_startup or not only:
            measure_startup(results, brains[sizes[0]], sizes[0], 1 if args.smoke else args.repeat, bsi_command(),
                            NOW, child_env())
        if args.only_mcp or not only:
            measure_mcp(results, brains[sizes[0]], sizes[0], 1 if args.smoke else args.repeat, bsi_command(),
                        child_env())
            measure_rows(results, workdir, bsi_command(), child_env(), 3 if args.smoke else 15,
                         (10,) if args.smoke else (10, 1000))
        if not only:
            measure_cli(results, brains, args.repeat, counts, args.smoke)
            measure_index(results, brains, args.repeat)
            measure_conflicts(results, brains, queries=20 if args.smoke else 300)
            measure_imports(results, brains[sizes[0]], sizes[0], args.repeat)
        if not args.no_hook and not (args.only_mcp or args.only_startup or args.only_history):
            measure_hook(results, brains, args.repeat, workdir, args.smoke)
        if not args.no_cockpit and not only:
            measure_cockpit(results, brains, 1 if args.smoke else min(args.repeat, 3), args.smoke)
    except (BenchError, RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError) as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    info["load_end"] = _load()
    text = render_markdown(results, info, args)
    if history_sizes:
        text += render_history(history)
    print(text)
    print(f"(benchmarks took {time.perf_counter() - began:.1f} s)", file=sys.stderr)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
