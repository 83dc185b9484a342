"""Environment state (brain_state, ADR-017, SPEC 16): derived live at every call, never cached.

`collect_env` gathers five independent sources — host, git, pm2, ports and system, the last four read in
`env_sources` — each in its own thread with a timeout. A source that fails shows as ``{"error": "..."}`` (pm2 and
ports keep their list keys, empty) and never stops the others. Nothing is written to disk. The function touches no
global state, so the cockpit can call it from a thread worker.

Time: only the caller's ``now`` is used (pm2 uptimes, sync age); without it, ages are null.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from pathlib import Path
from typing import Any

from brain_tui.core.environment.env_readings import GitReading, Pm2Reading, PortsReading, SystemReading
from brain_tui.core.environment.env_sources import collect_git, collect_pm2, collect_ports, collect_system, error_text
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.record import field, record


@record
class EnvState(JsonShaped):
    """One live reading of the environment; its fields are the JSON shape of `bsi env --json` (SPEC 19).

    Attributes:
        hostname: the machine's host name.
        instance: ``brain_name@machine``.
        git: version, branch, dirty, ahead, behind, remote, remote_url, last_sync (or ``{"error"}``).
        pm2: available, error, processes.
        ports: listening, configured (and ``error`` when listing failed).
        system: load, memory, disk (each may be ``{"error"}``).
    """

    hostname: str
    instance: str
    git: dict[str, Any] = field(default_factory=dict)
    pm2: dict[str, Any] = field(default_factory=dict)
    ports: dict[str, Any] = field(default_factory=dict)
    system: dict[str, Any] = field(default_factory=dict)

    @property
    def git_reading(self) -> GitReading:
        """`git` as a typed view (what the cockpit reads)."""
        return GitReading.of(self.git)

    @property
    def pm2_reading(self) -> Pm2Reading:
        """`pm2` as a typed view."""
        return Pm2Reading.of(self.pm2)

    @property
    def ports_reading(self) -> PortsReading:
        """`ports` as a typed view."""
        return PortsReading.of(self.ports)

    @property
    def system_reading(self) -> SystemReading:
        """`system` as a typed view."""
        return SystemReading.of(self.system)


def collect_env(
    root: str | os.PathLike[str],
    config: Any,
    instance: str,
    timeout_s: float = 2.0,
    *,
    now: datetime | None = None,
    environ: Mapping[str, str] | None = None,
) -> EnvState:
    """Derive the environment now (SPEC 16), never cached, never written: a failing source holds ``{"error": ...}``
    and the others still fill in.

    `config` is the BrainConfig (its `ports` and `pm2`); `instance` is ``brain_name@machine``. `timeout_s` bounds each
    external command, and a source still running after about four times this is reported as timed out. `now` is the
    caller's time (brain clock) for uptimes and sync age; `environ` (default: os.environ) gives pm2's PATH and the port
    variables.
    """
    env: Mapping[str, str] = dict(os.environ if environ is None else environ)
    base = Path(root)
    config_ports: Mapping[str, Any] = getattr(config, "ports", None) or {}
    ports_problem: str | None = getattr(config, "ports_problem", None)
    pm2_enabled = getattr(config, "pm2", None)
    # each source, and what its reading holds beside the error when it fails
    tasks: dict[str, tuple[Callable[[], dict[str, Any]], dict[str, Any]]] = {
        "git": (lambda: collect_git(base, timeout_s, now), {}),
        "pm2": (lambda: collect_pm2(timeout_s, now, env, pm2_enabled), {"available": False, "processes": []}),
        "ports": (lambda: collect_ports(config_ports, env, timeout_s, ports_problem),
                  {"listening": [], "configured": []}),
        "system": (lambda: collect_system(base), {}),
    }
    results: dict[str, dict[str, Any]] = {}
    pool = ThreadPoolExecutor(max_workers=len(tasks), thread_name_prefix="brain-env")
    try:
        futures = {name: pool.submit(fn) for name, (fn, _) in tasks.items()}
        budget = timeout_s * 4 + 1.0
        for name, future in futures.items():
            try:
                results[name] = future.result(timeout=budget)
            except FutureTimeout:
                results[name] = {**tasks[name][1], "error": f"{name} timed out"}
            except Exception as exc:  # noqa: BLE001 - one failing source must not hide the others
                results[name] = {**tasks[name][1], "error": error_text(exc)}
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    _join_pm2_ports(results["pm2"], results["ports"])
    try:
        hostname = socket.gethostname()
    except OSError:
        hostname = "unknown"
    return EnvState(hostname=hostname, instance=instance, git=results["git"], pm2=results["pm2"],
                    ports=results["ports"], system=results["system"])


def _join_pm2_ports(pm2: dict[str, Any], ports: dict[str, Any]) -> None:
    """Give a pm2 process without a PORT variable the port its pid listens on."""
    by_pid: dict[int, int] = {}
    for row in ports.get("listening") or []:
        if row.get("pid") and row["pid"] not in by_pid:
            by_pid[row["pid"]] = row["port"]
    for proc in pm2.get("processes") or []:
        if proc.get("port") is None and proc.get("pid") in by_pid:
            proc["port"] = by_pid[proc["pid"]]
