"""The sources of the environment state (SPEC 16): git, pm2, ports and system, each read live.

Each ``collect_*`` function reads one source with bounded time and returns a plain mapping; `env.collect_env` runs
them side by side and turns a failure into ``{"error": ...}``. Nothing here writes to disk or keeps global state.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from brain_tui.core.environment.bounded_run import run_bounded
from brain_tui.core.sync.git_state import stall
from brain_tui.core.sync.gitops import run_git

#: Environment variables naming configured ports (SPEC 16).
PORT_ENV_VARS = ("BRAIN_PORT", "BRAIN_MCP_PORT", "BRAIN_KEY_PORT")
#: At most this many dirty paths are listed (the count is always exact).
MAX_DIRTY_LISTED = 500
#: At most this much of `pm2 jlist` output is read; pm2 is killed once it prints more.
MAX_PM2_OUTPUT = 32 * 1024 * 1024
PM2_NOT_FOUND = "pm2 not found"
#: Above any process ID a system gives (Linux's limit is 2**22); a larger `pid` in `pm2 jlist` is no process.
MAX_PID = 2**31 - 1
#: `git status --porcelain=v2` records that name a dirty path, and how many spaces come before the path.
_DIRTY_RECORDS = {"1 ": 8, "2 ": 9, "u ": 10, "? ": 1}


def error_text(exc: BaseException) -> str:
    """A failure as one line of text (its message, else its type name)."""
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return " ".join(str(message).split())


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


# -- git ------------------------------------------------------------------------------------------
def _redact_url(url: str) -> str:
    """A remote URL without user/password (tokens in https URLs must not be shown)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.scheme and "@" in parts.netloc:
        host = parts.netloc.rsplit("@", 1)[1]
        return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return url


def _parse_status_v2(text: str) -> dict[str, Any]:
    """Parse `git status --porcelain=v2 --branch -z`."""
    head: str | None = None
    upstream: str | None = None
    ahead: int | None = None
    behind: int | None = None
    dirty: list[str] = []
    records = text.split("\0")
    i = 0
    while i < len(records):
        rec = records[i]
        i += 1
        if not rec:
            continue
        if rec.startswith("# branch.head "):
            value = rec[len("# branch.head "):]
            head = None if value == "(detached)" else value
        elif rec.startswith("# branch.upstream "):
            upstream = rec[len("# branch.upstream "):]
        elif rec.startswith("# branch.ab "):
            for part in rec[len("# branch.ab "):].split():
                if part.startswith("+"):
                    ahead = int(part[1:])
                elif part.startswith("-"):
                    behind = int(part[1:])
        elif rec[:2] in _DIRTY_RECORDS:
            dirty.append(rec.split(" ", _DIRTY_RECORDS[rec[:2]])[-1])
            if rec.startswith("2 "):
                i += 1  # the original path of a rename/copy follows as its own record
    return {"head": head, "upstream": upstream, "ahead": ahead, "behind": behind, "dirty": dirty}


def _git_dir(root: Path, timeout: float) -> Path | None:
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    proc = run_git(root, "rev-parse", "--absolute-git-dir", check=False, timeout=timeout)
    return Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None


def collect_git(root: str | os.PathLike[str], timeout_s: float = 2.0,
                now: datetime | None = None) -> dict[str, Any]:
    """Git state of the brain, the `git` part of `bsi env`: version, branch, dirty paths, ahead/behind (null without
    an upstream), remote, last sync (its age from the caller's `now`, null without it), the operation git is in the
    middle of (`git_state.stall`: rebase, merge, cherry-pick, revert, detached, ref-lock; null when idle) and how a
    person ends it; `timeout_s` bounds each git command. Raises GitError when git is missing, times out, or the
    folder is not a repository."""
    base = Path(root)
    # GIT_OPTIONAL_LOCKS=0: a status refreshes and rewrites the index under index.lock by default, which a
    # reading must not do (a session's commit would meet the lock while the cockpit polls)
    status = run_git(base, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal",
                     timeout=timeout_s, env={"GIT_OPTIONAL_LOCKS": "0"})
    parsed = _parse_status_v2(status.stdout)
    log = run_git(base, "log", "-1", "--oneline", check=False, timeout=timeout_s)
    version = log.stdout.strip() if log.returncode == 0 else None
    remotes: dict[str, str] = {}
    conf = run_git(base, "config", "--get-regexp", r"^remote\..*\.url$", check=False, timeout=timeout_s)
    for line in conf.stdout.splitlines():
        key, _, url = line.partition(" ")
        remotes[key[len("remote."):-len(".url")]] = _redact_url(url.strip())
    upstream = parsed["upstream"]
    remote: str | None = None
    if upstream:
        remote = next((name for name in sorted(remotes, key=len, reverse=True)
                       if upstream.startswith(name + "/")), None)
    if remote is None and remotes:
        remote = "origin" if "origin" in remotes else sorted(remotes)[0]
    last_sync: str | None = None
    last_sync_age: float | None = None
    git_dir = _git_dir(base, timeout_s)
    if git_dir is not None:
        try:
            mtime = (git_dir / "FETCH_HEAD").stat().st_mtime
        except OSError:
            mtime = None
        if mtime is not None:
            fetched = datetime.fromtimestamp(mtime, UTC)
            last_sync = _iso(fetched)
            if now is not None:
                last_sync_age = max(0.0, round((now - fetched).total_seconds(), 1))
    dirty = parsed["dirty"]
    stalled = stall(base, commits=True, timeout=timeout_s)  # what a bsi write meets: the one reading (`git_state`)
    return {
        "version": version,
        "branch": parsed["head"],
        "dirty": dirty[:MAX_DIRTY_LISTED],
        "dirty_count": len(dirty),
        "upstream": upstream,
        "ahead": parsed["ahead"] if upstream else None,
        "behind": parsed["behind"] if upstream else None,
        "remote": remote,
        "remote_url": remotes.get(remote) if remote else None,
        "last_sync": last_sync,
        "last_sync_age_s": last_sync_age,
        "operation": stalled.name if stalled else None,
        "operation_end": stalled.how if stalled else None,
    }


# -- pm2 ------------------------------------------------------------------------------------------
def _decode_jlist(text: str) -> list[Any]:
    """The JSON array in `pm2 jlist` output (pm2 may print banner lines before it)."""
    stripped = text.strip()
    try:
        data = json.loads(stripped)
    except ValueError:
        data = None
        decoder = json.JSONDecoder()
        offset = 0
        for line in text.splitlines(keepends=True):
            if line.lstrip().startswith("["):
                try:
                    data, _ = decoder.raw_decode(text, offset + (len(line) - len(line.lstrip())))
                    break
                except ValueError:
                    pass
            offset += len(line)
    if not isinstance(data, list):
        raise ValueError("pm2 jlist did not print a JSON list")
    return data


def _number(value: Any) -> float | int | None:
    """A count or measure pm2 reported: a finite number not below zero, else None (JSON holds no NaN or Infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if value >= 0 else None


def _uptime(started_ms: Any, status: str, now: datetime | None) -> float | None:
    """Seconds since pm2 started an online process; None without a start time after 1970 and not after `now`."""
    started = _number(started_ms)
    if now is None or not started or status != "online":
        return None
    seconds = now.timestamp() - started / 1000.0
    return round(seconds, 1) if seconds >= 0 else 0.0


def _port_of(pm2_env: Mapping[str, Any]) -> int | None:
    nested = pm2_env.get("env")
    sources: tuple[Mapping[str, Any], ...] = (pm2_env, nested if isinstance(nested, Mapping) else {})
    for source in sources:
        for key in ("PORT", "port"):
            value = source.get(key)
            try:
                port = int(str(value))
            except (TypeError, ValueError):
                continue
            if 0 < port < 65536:
                return port
    return None


def parse_pm2_processes(items: list[Any], now: datetime | None = None) -> list[dict[str, Any]]:
    """Keep only the fields the cockpit shows from the decoded `pm2 jlist` array (its env holds secrets: never
    copied): ``[{name, pid, status, uptime_s, restarts, cpu, memory, port}]``, `uptime_s` from the caller's `now`
    (null without it or when the process is not online)."""
    processes: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        raw_env, raw_monit = item.get("pm2_env"), item.get("monit")
        pm2_env: Mapping[str, Any] = raw_env if isinstance(raw_env, Mapping) else {}
        monit: Mapping[str, Any] = raw_monit if isinstance(raw_monit, Mapping) else {}
        status = str(pm2_env.get("status") or "unknown")
        pid = _number(item.get("pid"))
        processes.append({
            "name": str(item.get("name") or pm2_env.get("name") or "?"),
            "pid": int(pid) if pid and pid <= MAX_PID else None,
            "status": status,
            "uptime_s": _uptime(pm2_env.get("pm_uptime"), status, now),
            "restarts": _number(pm2_env.get("restart_time")),
            "cpu": _number(monit.get("cpu")),
            "memory": _number(monit.get("memory")),
            "port": _port_of(pm2_env),
        })
    return processes


def collect_pm2(timeout_s: float = 2.0, now: datetime | None = None,
                environ: Mapping[str, str] | None = None, enabled: bool | None = None) -> dict[str, Any]:
    """pm2 processes from `pm2 jlist` (run in `environ`, default os.environ, bounded by `timeout_s`), or why there
    are none: ``{"available", "error", "processes"}``; `error` is "pm2 not found" when pm2 is not on PATH. `enabled` is
    `pm2:` of brain-compose.yml (False skips pm2); `now` is the caller's time, for uptimes."""
    env = dict(os.environ if environ is None else environ)
    if enabled is False:
        return {"available": False, "error": "pm2 disabled in brain-compose.yml", "processes": []}
    exe = shutil.which("pm2", path=env.get("PATH", os.defpath))
    if exe is None:
        return {"available": False, "error": PM2_NOT_FOUND, "processes": []}
    try:
        code, out, err = run_bounded([exe, "jlist"], timeout_s, env, MAX_PM2_OUTPUT)
        if code != 0:
            detail = (err or out).strip().splitlines()
            raise RuntimeError(f"pm2 jlist failed: {detail[-1] if detail else f'exit {code}'}")
        processes = parse_pm2_processes(_decode_jlist(out), now)
    except (OSError, TimeoutError, RuntimeError, ValueError) as exc:
        return {"available": True, "error": error_text(exc), "processes": []}
    return {"available": True, "error": None, "processes": processes}


# -- ports ----------------------------------------------------------------------------------------
def _listening() -> tuple[list[dict[str, Any]], str | None]:
    """LISTEN TCP sockets with their process; a partial list and a note when access is denied."""
    import psutil

    names: dict[int, str | None] = {}

    def name_of(pid: int | None) -> str | None:
        if pid is None:
            return None
        if pid not in names:
            try:
                names[pid] = psutil.Process(pid).name()
            except (psutil.Error, OSError):
                names[pid] = None
        return names[pid]

    note: str | None = None
    conns: list[tuple[Any, int | None]] = []
    try:
        conns = [(c, c.pid) for c in psutil.net_connections(kind="tcp")]
    except (psutil.AccessDenied, PermissionError):
        note = "access denied listing all sockets: only this user's processes are shown"
        for proc in psutil.process_iter(["pid"]):
            try:
                conns.extend((c, proc.pid) for c in proc.net_connections(kind="tcp"))
            except (psutil.Error, OSError):
                continue
    seen: set[tuple[int, str, int | None]] = set()
    rows: list[dict[str, Any]] = []
    for conn, pid in conns:
        if conn.status != psutil.CONN_LISTEN or not conn.laddr:
            continue
        key = (conn.laddr.port, conn.laddr.ip, pid)
        if key in seen:
            continue
        seen.add(key)
        rows.append({"port": conn.laddr.port, "address": conn.laddr.ip, "pid": pid, "process": name_of(pid)})
    rows.sort(key=lambda r: (r["port"], r["address"], r["pid"] or 0))
    return rows, note


def port_number(value: Any) -> int | None:
    """`value` as a TCP port (1-65535): an integer, or text holding one (an environment variable, a quoted YAML
    number); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    try:
        port = int(value.strip()) if isinstance(value, str) else value
    except ValueError:
        return None
    return port if 0 < port < 65536 else None


def _not_a_port(value: Any) -> str:
    shown = repr(value[:40] if isinstance(value, str) else value)
    return f"not a port number: {shown if len(shown) <= 42 else shown[:41] + '…'}"


def configured_ports(config_ports: Mapping[str, Any], environ: Mapping[str, str],
                     problem: str | None = None) -> list[dict[str, Any]]:
    """Ports from brain-compose.yml `ports:` as written (name → value), then BRAIN_PORT / BRAIN_MCP_PORT /
    BRAIN_KEY_PORT from `environ`: ``[{name, port, source}]`` (port null plus `error` for a value that is no port
    number). `problem` says why `ports:` as a whole was not used (`BrainConfig.ports_problem`): a row of its own."""
    out: list[dict[str, Any]] = []
    if problem:
        out.append({"name": "ports", "port": None, "source": "brain-compose.yml", "error": problem})
    sources = [(str(name), value, "brain-compose.yml") for name, value in config_ports.items()]
    sources += [(var, environ[var], "env") for var in PORT_ENV_VARS
                if environ.get(var) is not None and environ[var].strip()]
    for name, value, source in sources:
        port = port_number(value)
        if port is None:
            out.append({"name": name, "port": None, "source": source, "error": _not_a_port(value)})
        else:
            out.append({"name": name, "port": port, "source": source})
    return out


def _probe(port: int, timeout: float) -> bool:
    """True when something accepts a TCP connection on localhost:port."""
    for host in ("127.0.0.1", "::1"):
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return True
        except OSError:
            continue
    return False


def collect_ports(config_ports: Mapping[str, Any], environ: Mapping[str, str] | None = None,
                  timeout_s: float = 2.0, problem: str | None = None) -> dict[str, Any]:
    """Listening TCP ports with their process, and the configured ports marked up or down.

    Gives ``{"listening": [...], "configured": [...], "error": str|None, "note": str|None}``. A configured port is up
    when a socket listens on it; when the listening sockets cannot be listed at all, a short localhost connect decides.
    """
    env = os.environ if environ is None else environ
    listening: list[dict[str, Any]] = []
    error: str | None = None
    note: str | None = None
    try:
        listening, note = _listening()
    except Exception as exc:  # noqa: BLE001 - one failing source must not hide the others
        error = error_text(exc)
    open_ports = {row["port"] for row in listening}
    configured = configured_ports(config_ports, env, problem)
    for entry in configured:
        port = entry["port"]
        if port is None:
            entry["up"] = False
        elif error is None:
            entry["up"] = port in open_ports
        else:
            entry["up"] = _probe(port, min(timeout_s, 0.3))
    return {"listening": listening, "configured": configured, "error": error, "note": note}


# -- system ---------------------------------------------------------------------------------------
def _guard(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - one failing source must not hide the others
        return {"error": error_text(exc)}


def collect_system(root: str | os.PathLike[str]) -> dict[str, Any]:
    """Load average, memory and the disk holding the brain; each part fails on its own."""

    def load() -> dict[str, Any]:
        one, five, fifteen = os.getloadavg()
        return {"1m": round(one, 2), "5m": round(five, 2), "15m": round(fifteen, 2), "cpus": os.cpu_count()}

    def memory() -> dict[str, Any]:
        import psutil

        mem = psutil.virtual_memory()
        return {"percent": mem.percent, "used": mem.used, "total": mem.total}

    def disk() -> dict[str, Any]:
        usage = shutil.disk_usage(root)
        percent = round(100.0 * usage.used / usage.total, 1) if usage.total else None
        return {"path": str(root), "percent": percent, "used": usage.used, "free": usage.free,
                "total": usage.total}

    return {"load": _guard(load), "memory": _guard(memory), "disk": _guard(disk)}
