"""The cockpit probe: run the cockpit headless on one brain, time it, print one JSON line.

Runs in a fresh process per measurement (`run.py` starts it), so first paint
is measured from process creation and imports count::

    python benchmarks/cockpit_probe.py BRAIN [--live] [--seed N] [--writes N]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import statistics
import time
from functools import partial
from pathlib import Path
from typing import Any

from generate import DEFAULT_NOW as NOW


def _edit_story(path: Path, story: str) -> None:
    """Rewrite one claim file's story_angle atomically, as another session would."""
    text = path.read_text(encoding="utf-8")
    new = re.sub(r"^story_angle:.*$", f"story_angle: {json.dumps(story)}", text, count=1, flags=re.MULTILINE)
    tmp = path.with_name(f".bench-tmp-{os.getpid()}")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, path)


def process_started() -> float:
    """When this process started, on the wall clock.

    From ``/proc`` (the process's start and the uptime, both counted from boot in clock ticks): psutil's
    ``create_time()`` adds a boot time rounded down to the second, so it reads up to 1 s early (0.7 s on one boot).
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            stat = handle.read()
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        ticks = int(stat[stat.rindex(")") + 2:].split()[19])
        return time.time() - (uptime - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        import psutil

        return float(psutil.Process().create_time())


def probe_cockpit(root: Path, live: bool, seed: int, writes: int = 1) -> dict[str, Any]:
    """Run the cockpit headless on `root` and time it (runs in its own process; prints one JSON line)."""
    started = time.perf_counter()
    import psutil

    from brain_tui.core.brain import Brain
    from brain_tui.core.records.statuses import BLOCKING_STATUSES
    from brain_tui.tui.app import BrainApp

    process = psutil.Process()
    out: dict[str, Any] = {"import_s": time.perf_counter() - started}

    began = process_started()

    async def run() -> None:
        t0_wall = time.time()
        brain = Brain(root, now=NOW, commit=False)
        # progressive=True: as `bsi tui` starts (blocking claims first, the rest in a worker after the paint).
        app = BrainApp(brain, live=live, bell=False, remember_theme=False, progressive=True,
                       env_provider=lambda _brain: (None, "environment: off (benchmark)"))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            painted = app.first_paint_at or time.time()  # when the first frame was drawn, not the idle wait
            out["paint_s"] = painted - t0_wall
            out["process_to_paint_s"] = painted - began
            while not app.full_loaded:  # the full snapshot arrives from the feed's reader thread
                await asyncio.sleep(0.005)
            await pilot.pause()
            gc.collect()
            out["rss_idle_mb"] = process.memory_info().rss / 2**20
            # Pilot's press/pause sleep until the process looks idle (tens of ms of wall time that are
            # not the app's): a keystroke is measured as the CPU time the app spends on it.
            keys = []
            for _ in range(5):
                start = time.process_time()
                await pilot.press("down")
                await pilot.pause()
                keys.append(time.process_time() - start)
            out["key_s"] = statistics.median(keys)
            targets = [c for c in app.snapshot.claims if c.status in BLOCKING_STATUSES]
            target = targets[seed % len(targets)]
            story = f"benchmark edit {seed} {'live' if live else 'manual'}"
            if live:
                await asyncio.sleep(0.3)  # let the watcher start
                start = time.perf_counter()
                _edit_story(root / target.path, story)
                deadline = start + 5.0
                out["live_latency_s"] = None
                while time.perf_counter() < deadline:
                    shown = app.snapshot.claim(target.sess_id)
                    if shown is not None and shown.story == story:
                        out["live_latency_s"] = time.perf_counter() - start
                        break
                    await asyncio.sleep(0.002)
                out["refresh_parsed"] = brain.store.parsed_last
            else:
                _edit_story(root / target.path, story)
                start = time.perf_counter()
                app.refresh_snapshot()  # read in the feed's thread, shown when its message arrives
                shown = None
                while time.perf_counter() < start + 10.0:
                    await asyncio.sleep(0.001)
                    shown = app.snapshot.claim(target.sess_id)
                    if shown is not None and shown.story == story:
                        break
                work = time.perf_counter() - start
                start = time.process_time()
                await pilot.pause()  # the render (CPU time, not Pilot's idle wait)
                out["refresh_s"] = work + time.process_time() - start
                out["refresh_parsed"] = brain.store.parsed_last
                out["refresh_seen"] = shown is not None and shown.story == story
                # One write through the cockpit (an approve, else a renew), then memory again.
                gate = next((c for c in app.snapshot.claims if c.status == "waiting_human"), None)
                out["write"] = "approve" if gate is not None else "renew"
                try:
                    if gate is None:
                        raise LookupError("no gate")
                    approve = partial(app.call_core,
                                      lambda b: b.gates.approve(gate.sess_id, "benchmark", by="human:bench"))
                    await asyncio.to_thread(approve)
                except Exception:  # noqa: BLE001 - a refused approve: the write measured is a renew
                    out["write"] = "renew"
                    live_one = next(c for c in app.snapshot.claims if c.status == "open")
                    await asyncio.to_thread(partial(app.call_core, lambda b: b.renew_claim(live_one.sess_id)))
                app.refresh_snapshot()
                await pilot.pause(0.3)
                for _ in range(max(0, writes - 1)):  # more writes (renews), as a working day brings
                    live_one = next(c for c in app.snapshot.claims if c.status == "open")
                    await asyncio.to_thread(partial(app.call_core, lambda b, s=live_one.sess_id: b.renew_claim(s)))
                    app.refresh_snapshot()
                    await pilot.pause(0.1)
                while app.feed.busy:
                    await asyncio.sleep(0.01)
                await pilot.pause()
                gc.collect()
                out["writes"] = max(1, writes)
                out["rss_after_write_mb"] = process.memory_info().rss / 2**20
                # The history pane: its first page, then the next one (wall time until the rows are shown).
                start = time.perf_counter()
                await pilot.press("7")
                await pilot.pause()
                table = app.screen.query_one("#history")
                out["history_first_page_s"] = time.perf_counter() - start
                start = time.perf_counter()
                await pilot.press("right_square_bracket")
                await pilot.pause()
                out["history_next_page_s"] = time.perf_counter() - start
                out["history_total"] = getattr(table, "total", None)
            out["rss_mb"] = process.memory_info().rss / 2**20
            out["claims"] = len(app.snapshot.claims)

    asyncio.run(run())
    return out


#: The cockpit's rows of run.py's --history table (issue 18's goals at 100,000 claims: paint, RSS, change → screen).
HISTORY_ROWS = (
    ("cockpit first paint, process start → screen", "process_to_paint_s", 1000.0, "ms", 1500.0),
    ("cockpit RSS after 5 writes", "rss_after_write_mb", 1.0, "MB", 150.0),
    ("cockpit 1 file change → screen (live watcher)", "live_latency_s", 1000.0, "ms", 300.0),
)


def _run_probe(root: Path, live: bool, seed: int, writes: int, env: dict[str, str]) -> dict[str, Any]:
    import subprocess
    import sys

    cmd = [sys.executable, str(Path(__file__).resolve()), str(root), "--seed", str(seed), "--writes", str(writes)]
    done = subprocess.run([*cmd, *(["--live"] if live else [])], capture_output=True, text=True, env=env,
                          check=False, timeout=600)
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"cockpit probe on {root.name} failed: {done.stderr.strip()[-800:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def history_rows(put: Any, brains: dict[int, Path], repeat: int, env: dict[str, str]) -> None:
    """Put `HISTORY_ROWS` for each brain (`put(name, size, value, unit)`): medians of `repeat` fresh processes,
    after one warm-up run (the first open of a big brain builds its closed set)."""
    for size, root in brains.items():
        _run_probe(root, live=False, seed=0, writes=1, env=env)
        samples = []
        for number in range(max(1, repeat)):
            manual = _run_probe(root, live=False, seed=number, writes=5, env=env)
            live = _run_probe(root, live=True, seed=number, writes=1, env=env)
            samples.append({**manual, "live_latency_s": live.get("live_latency_s")})
        for name, key, scale, unit, _goal in HISTORY_ROWS:
            values = [s[key] for s in samples if s.get(key) is not None]
            if values:
                put(name, size, statistics.median(values) * scale, unit)


def history_goal_lines(get: Any, sizes: list[int]) -> list[str]:
    """One line per cockpit row: the value at the biggest size against its goal, beside the smallest."""
    small, big = min(sizes), max(sizes)
    lines = []
    for name, _key, _scale, unit, goal in HISTORY_ROWS:
        a, b = get(name, small), get(name, big)
        if a is None or b is None:
            continue
        lines.append(f"- {name}: {b:.0f} {unit} at {big:,} vs {a:.0f} {unit} at {small} (goal ≤ {goal:.0f} {unit} "
                     f"at {big:,}: {'met' if b <= goal else 'missed'})")
    return lines


def main() -> int:
    """Probe the brain named on the command line; print the figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("brain", type=Path)
    parser.add_argument("--live", action="store_true", help="watch the files (the live watcher's latency)")
    parser.add_argument("--seed", type=int, default=0, help="which claim file the probe rewrites")
    parser.add_argument("--writes", type=int, default=1, help="writes made through the cockpit before RSS")
    args = parser.parse_args()
    print(json.dumps(probe_cockpit(args.brain, args.live, args.seed, args.writes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
