"""The environment sources on hostile input: a pm2 that prints odd numbers, a brain-compose.yml with odd ports."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.config import load_config
from brain_tui.core.environment import env_sources
from brain_tui.core.environment.env_sources import (
    collect_git,
    collect_pm2,
    collect_ports,
    configured_ports,
    parse_pm2_processes,
)
from tests.bsi import clean_env, git

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def strict_json(value: Any) -> Any:
    """`value` through JSON that refuses NaN and Infinity (what any other JSON reader does)."""
    return json.loads(json.dumps(value, allow_nan=False))


@pytest.mark.parametrize("uptime", [-1e30, 1e30, float("inf"), float("nan"), -1, "x"])
def test_pm2_start_time_out_of_any_range_gives_no_uptime_or_a_bounded_one(uptime: Any) -> None:
    rows = parse_pm2_processes([{"name": "a", "pid": 12, "pm2_env": {"status": "online", "pm_uptime": uptime}}], NOW)
    shown = rows[0]["uptime_s"]
    assert shown is None or 0 <= shown <= NOW.timestamp()


def test_pm2_numbers_that_json_cannot_hold_or_that_mean_nothing_are_null() -> None:
    items = [{"name": "a", "pid": 1e30, "monit": {"cpu": float("inf"), "memory": -5},
              "pm2_env": {"status": "online", "restart_time": float("nan")}},
             {"name": "b", "pid": -3, "monit": {"cpu": float("-inf"), "memory": float("nan")},
              "pm2_env": {"status": "stopped", "restart_time": -1}}]
    rows = strict_json(parse_pm2_processes(items, NOW))
    for row in rows:
        assert (row["pid"], row["cpu"], row["memory"], row["restarts"]) == (None, None, None, None), row


def test_pm2_sane_numbers_are_kept() -> None:
    start = int(NOW.timestamp() * 1000) - 60_000
    rows = parse_pm2_processes([{"name": "a", "pid": 42, "monit": {"cpu": 0, "memory": 0},
                                 "pm2_env": {"status": "online", "pm_uptime": start, "restart_time": 0}}], NOW)
    assert {k: rows[0][k] for k in ("pid", "cpu", "memory", "restarts", "uptime_s")} == {
        "pid": 42, "cpu": 0, "memory": 0, "restarts": 0, "uptime_s": 60.0}
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in rows[0].values())


def compose(tmp_path: Path, text: str) -> Path:
    (tmp_path / "brain-compose.yml").write_text(text, encoding="utf-8")
    return tmp_path


def test_compose_ports_that_are_no_port_number_show_as_such(tmp_path: Path) -> None:
    config = load_config(compose(tmp_path, 'ports:\n  web: abc\n  big: 99999999999999999999\n  neg: -5\n'
                                           '  zero: 0\n  frac: 80.5\n  many: [1, 2]\n  none:\n  ok: 8082\n'))
    rows = {row["name"]: row for row in configured_ports(config.ports, {}, config.ports_problem)}
    assert set(rows) == {"web", "big", "neg", "zero", "frac", "many", "none", "ok"}
    assert rows["ok"] == {"name": "ok", "port": 8082, "source": "brain-compose.yml"}
    for name in ("web", "big", "neg", "zero", "frac", "many", "none"):
        assert rows[name]["port"] is None and rows[name]["source"] == "brain-compose.yml", rows[name]
        assert "not a port number" in rows[name]["error"], rows[name]
    assert all(len(row.get("error", "")) < 80 for row in rows.values())


def test_compose_port_written_as_a_quoted_number_is_that_port(tmp_path: Path) -> None:
    config = load_config(compose(tmp_path, 'ports:\n  api: "7700"\n  mcp: " 7701 "\n'))
    rows = configured_ports(config.ports, {}, config.ports_problem)
    assert [(r["name"], r["port"]) for r in rows] == [("api", 7700), ("mcp", 7701)]


def test_compose_ports_not_a_mapping_shows_one_row_saying_so(tmp_path: Path) -> None:
    config = load_config(compose(tmp_path, "ports: [8080, 8081]\n"))
    rows = configured_ports(config.ports, {}, config.ports_problem)
    assert len(rows) == 1 and rows[0]["port"] is None and "ports" in rows[0]["error"]


def test_unusable_compose_port_is_down_and_json_ready(tmp_path: Path) -> None:
    config = load_config(compose(tmp_path, "ports:\n  web: abc\n"))
    out = strict_json(collect_ports(config.ports, {}, 0.2))
    assert out["configured"][0]["up"] is False and out["configured"][0]["port"] is None


def fake_pm2(tmp_path: Path, body: str) -> dict[str, str]:
    """An environment whose PATH holds only a fake `pm2` (a Python script)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    pm2 = bindir / "pm2"
    pm2.write_text(f"#!{sys.executable}\nimport sys\n{body}\n", encoding="utf-8")
    pm2.chmod(0o755)
    return {"PATH": str(bindir)}


def test_pm2_printing_without_end_is_cut_at_the_limit_not_held_in_memory(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env_sources, "MAX_PM2_OUTPUT", 256 * 1024)
    environ = fake_pm2(tmp_path, "chunk = b'[PM2] ' * 10000\nwhile True:\n    sys.stdout.buffer.write(chunk)")
    started = time.monotonic()
    out = collect_pm2(5.0, NOW, environ)
    assert time.monotonic() - started < 4.0
    assert out["available"] is True and out["processes"] == []
    assert "more than" in out["error"] and "timed out" not in out["error"], out["error"]


def test_pm2_output_over_the_limit_is_refused_not_parsed_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(env_sources, "MAX_PM2_OUTPUT", 64 * 1024)
    rows = json.dumps([{"name": f"p{i}", "pm2_env": {"status": "online"}} for i in range(5000)])
    environ = fake_pm2(tmp_path, f"sys.stdout.write({rows!r})")
    out = collect_pm2(5.0, NOW, environ)
    assert out["processes"] == [] and "more than" in out["error"], out["error"]


def test_reading_git_state_never_rewrites_the_index(tmp_path: Path) -> None:
    """The environment is read, not written (SPEC 16): no `.git/index` refresh, so no `index.lock` for a session's
    commit to meet while the cockpit polls."""
    env = clean_env(identity="Test")
    git(tmp_path, "init", "-q", env=env)
    note = tmp_path / "note.md"
    note.write_text("a\n", encoding="utf-8")
    git(tmp_path, "add", "note.md", env=env)
    git(tmp_path, "commit", "-q", "-m", "note", env=env)
    stat = note.stat()
    os.utime(note, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # the index's stat data is now stale
    index = tmp_path / ".git" / "index"
    before = index.stat()
    out = collect_git(tmp_path, 5.0, NOW)
    after = index.stat()
    assert out["dirty_count"] == 0 and out["version"]
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_every_git_process_of_the_git_reading_is_bounded_by_the_probes_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bsi env --timeout N` bounds each probe: the reading of git's operation (`git_state.stall`) too, not only the
    status, log and config calls (it asked git with the 60 s default)."""
    from brain_tui.core.sync import git_state, gitops

    env = clean_env(identity="Test")
    git(tmp_path, "init", "-q", env=env)
    (tmp_path / "a.md").write_text("a\n", encoding="utf-8")
    git(tmp_path, "add", "a.md", env=env)
    git(tmp_path, "commit", "-q", "-m", "a", env=env)
    git(tmp_path, "checkout", "-q", "--detach", env=env)  # git is asked whether HEAD is detached
    limits: list[float] = []
    real = gitops.run_git

    def counted(root: Any, *args: str, timeout: float = 60.0, **kwargs: Any) -> Any:
        limits.append(timeout)
        return real(root, *args, timeout=timeout, **kwargs)

    monkeypatch.setattr(gitops, "run_git", counted)
    monkeypatch.setattr(git_state, "run_git", counted)
    monkeypatch.setattr(env_sources, "run_git", counted)
    out = collect_git(tmp_path, timeout_s=1.5, now=NOW)
    assert out["operation"] == "detached"
    assert limits and set(limits) == {1.5}, limits
