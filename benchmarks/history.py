"""A year of history against a new brain: the agent's loop at 100,000 claims beside 10, in one run.

Each size is a git brain built in bulk (benchmarks/generate.py, one commit of every file). The rows are
the commands an agent's loop runs, each beside ``python -c pass`` measured in the same rounds:

- a refused hook write (an unbound Edit inside a live claim's scope, exit 2);
- the first hook write after a change (the hook index removed: the core decides);
- ``claim open`` and ``claim close`` with their commit;
- ``preflight check``, ``attention``, ``claim list``, ``check-scope``.

Sizes alternate inside each round, so a busy machine weighs on both alike.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from generate import DEFAULT_NOW, generate

NOW = DEFAULT_NOW
HISTORY_SIZES = (10, 100_000)
FLOOR_ROW = "python -c pass (history run)"
ROWS = (
    "history: refused hook write (unbound Edit in a live scope)",
    "history: first hook write after a change (index stale)",
    "history: claim open (with the commit)",
    "history: claim close (with the commit)",
    "history: preflight check",
    "history: attention --json",
    "history: claim list --json",
    "history: check-scope --json",
)
BOUND = "bench-history-agent"


class _Results(Protocol):
    def put(self, name: str, size: int, value: float, unit: str = "ms") -> None: ...


#: Hook runs that answered "brain busy" (past the hook's own deadline) instead of deciding, per row and size.
BUSY: dict[tuple[str, int], int] = {}


def _timed(cmd: Sequence[str], env: dict[str, str], ok: Sequence[int], stdin: bytes | None = None,
           busy: tuple[str, int] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(list(cmd), input=stdin, capture_output=True, env=env, timeout=600, check=False)
    elapsed = time.perf_counter() - start
    if busy is not None and b"brain busy" in done.stderr:
        BUSY[busy] = BUSY.get(busy, 0) + 1
        return elapsed
    if done.returncode not in ok:
        raise RuntimeError(f"{' '.join(cmd[-6:])} exited {done.returncode}: "
                           f"{(done.stdout + done.stderr).decode(errors='replace')[-400:]}")
    return elapsed


def build(workdir: Path, sizes: Sequence[int]) -> dict[int, Path]:
    """One git brain per size, every file in one commit (100,000 claims in well under a minute)."""
    brains: dict[int, Path] = {}
    for size in sizes:
        root = workdir / f"history-{size}"
        if not root.exists():
            generate(root, size, now=NOW, git=True)
        brains[size] = root
    return brains


def _live_scope(root: Path) -> tuple[str, str]:
    """(sess_id, a file inside its scope) of one open claim whose scope is a folder."""
    for path in sorted((root / "claims").glob("*.yml")):
        text = path.read_text(encoding="utf-8")
        if "\nstatus: open\n" not in text:
            continue
        for line in text.splitlines():
            if line.startswith("scope: ") and line.endswith("/"):
                return path.stem, line[len("scope: "):] + "bench-x.py"
    raise RuntimeError(f"{root}: no open claim on a folder scope")


def measure_history(results: _Results, workdir: Path, bsi: Sequence[str], env: dict[str, str],
                    repeat: int, sizes: Sequence[int] = HISTORY_SIZES) -> None:
    """Put the history rows (see the module's docstring) for every size in `sizes`."""
    brains = build(workdir, sizes)
    hook_env = {k: v for k, v in env.items()
                if k not in ("BSI_SESSION", "CLAUDE_CODE_SESSION_ID", "BSI_HOOKS", "PYTHONDONTWRITEBYTECODE")}
    hook_env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    plans: dict[int, dict[str, Any]] = {}
    for size, root in brains.items():
        sess, target = _live_scope(root)
        refused = json.dumps({
            "session_id": "bench-unbound", "transcript_path": "/tmp/bench.jsonl", "cwd": str(root),
            "hook_event_name": "PreToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": str(root / target), "old_string": "a", "new_string": "b"},
        }).encode()
        base = [*bsi, "--brain", str(root), "--now", NOW]
        _timed([*base, "claim", "open", "--scope", "bench-history/", "--story", "history bench",
                "--agent-session", BOUND], env, (0, 10))  # 10: held by the same agent from a previous run
        bound = json.dumps({
            "session_id": BOUND, "transcript_path": "/tmp/bench.jsonl", "cwd": str(root),
            "hook_event_name": "PreToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": str(root / "bench-history" / "x.py"), "old_string": "a",
                           "new_string": "b"},
        }).encode()
        plans[size] = {"size": size, "root": root, "base": base, "sess": sess, "target": target,
                       "refused": refused, "bound": bound}
    time.sleep(2.1)  # out of the racy window of a fresh change (core/sessions/hook_index.py)

    def hook_refused(plan: dict[str, Any]) -> float:
        return _timed([*plan["base"], "hook", "pre-tool-use"], hook_env, (2,), plan["refused"],
                      busy=(ROWS[0], plan["size"]))

    def hook_first(plan: dict[str, Any]) -> float:
        (plan["root"] / ".brain" / "hook-index.json").unlink(missing_ok=True)
        return _timed([*plan["base"], "hook", "pre-tool-use"], hook_env, (0,), plan["bound"],
                      busy=(ROWS[1], plan["size"]))

    def open_close(plan: dict[str, Any]) -> tuple[float, float]:
        start = time.perf_counter()
        done = subprocess.run([*plan["base"], "--json", "claim", "open", "--scope", "bench-open/",
                               "--story", "open/close bench"], capture_output=True, env=env, timeout=600,
                              check=False)
        opened = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"claim open exited {done.returncode}: {done.stderr.decode()[-300:]}")
        sess_id = json.loads(done.stdout)["sess_id"]
        closed = _timed([*plan["base"], "claim", "close", sess_id, "--status", "ok"], env, (0,))
        return opened, closed

    reads: list[tuple[str, Callable[[dict[str, Any]], list[str]], Sequence[int]]] = [
        (ROWS[4], lambda p: [*p["base"], "preflight", "check", p["sess"], p["target"]], (0, 1, 2, 3, 4, 5, 6)),
        (ROWS[5], lambda p: [*p["base"], "--json", "attention"], (0,)),
        (ROWS[6], lambda p: [*p["base"], "--json", "claim", "list"], (0,)),
        (ROWS[7], lambda p: [*p["base"], "--json", "check-scope", p["target"]], (0, 10)),
    ]
    for plan in plans.values():  # warm-up: bytecode, caches, the hook index
        hook_refused(plan)
        for _name, argv, ok in reads:
            _timed(argv(plan), env, ok)
    times: dict[tuple[str, int], list[float]] = {}
    floor: list[float] = []
    for _ in range(max(1, repeat)):
        floor.append(_timed([sys.executable, "-c", "pass"], hook_env, (0,)))
        for size, plan in plans.items():
            times.setdefault((ROWS[0], size), []).append(hook_refused(plan))
            times.setdefault((ROWS[1], size), []).append(hook_first(plan))
            opened, closed = open_close(plan)
            times.setdefault((ROWS[2], size), []).append(opened)
            times.setdefault((ROWS[3], size), []).append(closed)
            for name, argv, ok in reads:
                times.setdefault((name, size), []).append(_timed(argv(plan), env, ok))
    for (name, size), values in times.items():
        results.put(name, size, statistics.median(values) * 1000)
    for (name, size), count in BUSY.items():
        results.put(f"{name}: answered 'brain busy' (hook deadline)", size, count, "runs")
    for size in plans:
        results.put(FLOOR_ROW, size, statistics.median(floor) * 1000)


def goal_lines(get: Callable[[str, int], float | None], sizes: Sequence[int] = HISTORY_SIZES) -> list[str]:
    """One line per row: big/small ratio (goal ≤ 2×) and, for the hook rows, big/floor (goal ≤ 10×)."""
    small, big = min(sizes), max(sizes)
    lines = []
    for name in ROWS:
        a, b, floor = get(name, small), get(name, big), get(FLOOR_ROW, big)
        if a is None or b is None:
            continue
        line = f"- {name}: {b:.0f} ms at {big:,} vs {a:.0f} ms at {small} = {b / a:.1f}× (goal ≤ 2×)"
        if "hook" in name and floor:
            line += f"; {b / floor:.1f}× `python -c pass` ({floor:.0f} ms, goal ≤ 10×)"
        lines.append(line)
    return lines
