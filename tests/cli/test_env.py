"""`bsi env`: the environment derived live — git, pm2, listening and configured ports, system (SPEC 16)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import psutil
import pytest

from brain_tui.core.config import load_config
from brain_tui.core.environment.env import collect_env
from tests.bsi import Run, clean_env, git, run_bsi

NOW = "2026-11-29T10:00:00Z"
NOW_DT = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
#: The inherited environment minus the brain's root, clock and configured ports, committing as Test.
ENV = clean_env(drop=("BRAIN_ROOT", "BRAIN_NOW", "BRAIN_PORT", "BRAIN_MCP_PORT", "BRAIN_KEY_PORT"), pin=False,
                identity="Test")

#: A `pm2 jlist` as pm2 5 prints it (trimmed), after a banner line; the env holds a secret.
JLIST = [
    {
        "pid": 4242,
        "name": "brain-engine",
        "pm_id": 0,
        "monit": {"memory": 73400320, "cpu": 1.5},
        "pm2_env": {
            "name": "brain-engine",
            "status": "online",
            "pm_uptime": int(NOW_DT.timestamp() * 1000) - 3_600_000,
            "restart_time": 2,
            "unstable_restarts": 0,
            "env": {"PORT": "7700", "API_SECRET": "hunter2-do-not-show"},
        },
    },
    {
        "pid": 0,
        "name": "brain-mcp",
        "pm_id": 1,
        "monit": {"memory": 0, "cpu": 0},
        "pm2_env": {"name": "brain-mcp", "status": "stopped", "pm_uptime": 1764000000000, "restart_time": 15,
                    "env": {}},
    },
]


def bsi(brain: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    """Run `bsi --brain BRAIN --now NOW ARGS…` (default environment: ENV)."""
    return run_bsi(*args, brain=brain, now=NOW, env=env or ENV, timeout=120)


def env_json(brain: Path, *args: str, env: dict[str, str] | None = None) -> dict:
    """`bsi env --json`, parsed (exit 0 required)."""
    proc = bsi(brain, "env", "--json", *args, env=env)
    assert proc.code == 0, proc.err
    return json.loads(proc.out)


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    """A real TCP socket listening on 127.0.0.1, owned by this test process."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    yield sock
    sock.close()


def free_port() -> int:
    """A port nothing listens on (bound then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def brain(tmp_path_factory: pytest.TempPathFactory, listener: socket.socket) -> Path:
    """An initialised brain whose brain-compose.yml configures one port up and one down."""
    root = tmp_path_factory.mktemp("env") / "brain"
    proc = run_bsi("init", str(root), now=None, env=ENV, timeout=None)
    assert proc.code == 0, proc.err
    up = listener.getsockname()[1]
    (root / "brain-compose.yml").write_text(
        f"brain_name: testbrain\nports:\n  svc-up: {up}\n  svc-down: {free_port()}\n", encoding="utf-8")
    (root / "notes.md").write_text("dirty\n", encoding="utf-8")
    return root


def fake_pm2(body: str) -> str:
    """A fake `pm2` executable: a Python script (PATH holds no shell tools in these tests)."""
    return f"#!{sys.executable}\nimport sys\n{body}\n"


def path_with(tmp_path: Path, pm2_script: str | None) -> dict[str, str]:
    """An environment whose PATH holds git and, when given, a fake `pm2` — and no other pm2."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    git = shutil.which("git")
    assert git
    (bindir / "git").symlink_to(git)
    if pm2_script is not None:
        pm2 = bindir / "pm2"
        pm2.write_text(pm2_script, encoding="utf-8")
        pm2.chmod(0o755)
    return {**ENV, "PATH": str(bindir)}


def test_listening_socket_appears_with_this_process(brain: Path, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    for _read in range(10):  # under load, another worker thread's fork may be named several reads in a row
        # psutil names one process per socket: a child this process forks for git (in process, `bsi env` runs
        # git) holds the socket too until it execs, and may be the one named at that instant; read again then
        data = env_json(brain)
        rows = [r for r in data["ports"]["listening"] if r["port"] == port]
        assert rows, data["ports"]["listening"]
        if rows[0]["pid"] == os.getpid():
            break
    assert rows[0]["address"] == "127.0.0.1"
    assert rows[0]["pid"] == os.getpid()
    assert rows[0]["process"] == psutil.Process().name()


def test_json_has_the_spec_keys_and_live_git(brain: Path) -> None:
    data = env_json(brain)
    assert set(data) == {"hostname", "instance", "git", "pm2", "ports", "system", "sync"}
    assert data["hostname"] == socket.gethostname()
    assert data["instance"] == f"testbrain@{socket.gethostname()}"
    head = git(brain, "log", "-1", "--oneline", env=os.environ).strip()
    assert data["git"]["version"] == head
    assert data["git"]["branch"]
    assert "notes.md" in data["git"]["dirty"] and "brain-compose.yml" in data["git"]["dirty"]
    assert data["git"]["ahead"] is None and data["git"]["behind"] is None  # no upstream
    assert data["git"]["last_sync"] is None  # never fetched
    assert data["system"]["memory"]["total"] == psutil.virtual_memory().total
    assert data["system"]["disk"]["total"] == shutil.disk_usage(brain).total
    assert len([data["system"]["load"][k] for k in ("1m", "5m", "15m")]) == 3


def test_configured_ports_up_and_down(brain: Path, listener: socket.socket, tmp_path: Path) -> None:
    up = listener.getsockname()[1]
    env = {**ENV, "BRAIN_KEY_PORT": str(up), "BRAIN_MCP_PORT": "not-a-port"}
    configured = {c["name"]: c for c in env_json(brain, env=env)["ports"]["configured"]}
    assert configured["svc-up"]["port"] == up and configured["svc-up"]["up"] is True
    assert configured["svc-down"]["up"] is False
    assert configured["BRAIN_KEY_PORT"]["up"] is True and configured["BRAIN_KEY_PORT"]["source"] == "env"
    assert configured["BRAIN_MCP_PORT"]["up"] is False and "not a port" in configured["BRAIN_MCP_PORT"]["error"]
    assert "BRAIN_PORT" not in configured
    text = bsi(brain, "env", env=env).out
    assert f"svc-up {up} up" in text and "svc-down" in text and " down" in text


def test_fake_pm2_processes_appear_without_their_env(brain: Path, tmp_path: Path) -> None:
    script = fake_pm2(f"assert sys.argv[1:] == ['jlist']\nprint('[PM2] Spawning PM2 daemon')\n"
                      f"print({json.dumps(JLIST)!r})")
    env = path_with(tmp_path, script)
    proc = bsi(brain, "env", "--json", env=env)
    assert proc.code == 0, proc.err
    assert "hunter2" not in proc.out
    pm2 = json.loads(proc.out)["pm2"]
    assert pm2["available"] is True and pm2["error"] is None
    engine, mcp = pm2["processes"]
    assert engine == {"name": "brain-engine", "pid": 4242, "status": "online", "uptime_s": 3600.0,
                      "restarts": 2, "cpu": 1.5, "memory": 73400320, "port": 7700}
    assert mcp["name"] == "brain-mcp" and mcp["status"] == "stopped" and mcp["uptime_s"] is None
    assert mcp["restarts"] == 15 and mcp["port"] is None
    text = bsi(brain, "env", env=env).out
    assert "brain-engine" in text and "online" in text and "1h00m" in text


def test_no_pm2_on_path_says_pm2_not_found(brain: Path, tmp_path: Path) -> None:
    env = path_with(tmp_path, None)
    data = env_json(brain, env=env)
    assert data["pm2"] == {"available": False, "error": "pm2 not found", "processes": []}
    assert data["git"]["version"]  # git still found on that PATH: the other sources fill in
    text = bsi(brain, "env", env=env)
    assert text.code == 0
    assert "pm2 not found" in text.out


def test_hanging_pm2_is_cut_by_the_timeout(brain: Path, tmp_path: Path) -> None:
    env = path_with(tmp_path, fake_pm2("import time\ntime.sleep(30)"))
    data = env_json(brain, "--timeout", "0.5", env=env)
    assert data["pm2"]["available"] is True
    assert "timed out" in data["pm2"]["error"] and data["pm2"]["processes"] == []
    assert data["ports"]["listening"] is not None and "total" in data["system"]["memory"]


def test_failing_pm2_reports_its_error(brain: Path, tmp_path: Path) -> None:
    env = path_with(tmp_path, fake_pm2("sys.stderr.write('connect EACCES /root/.pm2/rpc.sock\\n')\nsys.exit(1)"))
    pm2 = env_json(brain, env=env)["pm2"]
    assert pm2["available"] is True and "EACCES" in pm2["error"]


def test_a_failing_source_does_not_hide_the_others(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "claims").mkdir(parents=True)  # a brain folder that is not a git repository
    data = env_json(root, env={**ENV, "GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert "error" in data["git"] and "not a git repository" in data["git"]["error"]
    assert data["system"]["memory"]["total"] > 0
    assert isinstance(data["ports"]["listening"], list)
    text = bsi(root, "env", env={**ENV, "GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert text.code == 0 and "git       error:" in text.out


def test_collect_env_core_api(brain: Path, tmp_path: Path) -> None:
    """The function the cockpit's thread worker calls: plain data, time only from the caller."""
    state = collect_env(brain, load_config(brain), "x@y", 1.0, now=NOW_DT,
                        environ=path_with(tmp_path, None))
    data = state.as_dict()
    assert data["instance"] == "x@y"
    assert data["pm2"]["error"] == "pm2 not found"
    assert json.loads(json.dumps(data)) == data  # JSON-ready
    assert {c["name"] for c in data["ports"]["configured"]} == {"svc-up", "svc-down"}


def test_pm2_printing_numbers_out_of_range_still_gives_one_strict_json_and_text(brain: Path, tmp_path: Path) -> None:
    # Python's JSON reader takes NaN, Infinity and 1e400; a start time far in the past overflows a duration
    jlist = ('[{"name": "a", "pid": 12, "pm2_env": {"status": "online", "pm_uptime": -1e30, "restart_time": NaN},'
             ' "monit": {"cpu": 1e400, "memory": -Infinity}}]')
    env = path_with(tmp_path, fake_pm2(f"print({jlist!r})"))
    proc = bsi(brain, "env", "--json", env=env)
    assert proc.code == 0, proc.err

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in the JSON output")

    row = json.loads(proc.out, parse_constant=refuse)["pm2"]["processes"][0]
    assert row["name"] == "a" and row["cpu"] is None and row["memory"] is None and row["restarts"] is None
    text = bsi(brain, "env", env=env)
    assert text.code == 0 and "internal error" not in text.err and "  a " in text.out


def test_text_says_an_upstream_not_fetched_rather_than_none() -> None:
    from brain_tui.cli.state import format_env

    state = collect_env(Path("/nonexistent-brain"), load_config(Path("/nonexistent-brain")), "x@y", 1.0).as_dict()
    state["git"] = {"version": "abc x", "branch": "main", "dirty_count": 0, "upstream": "origin/main", "ahead": None,
                    "behind": None, "remote": "origin", "last_sync": None}
    text = format_env(state)
    assert "no upstream" not in text and "origin/main not fetched" in text
    state["git"]["upstream"] = None
    assert "no upstream" in format_env(state)


@pytest.mark.parametrize(("how", "name", "end"), [("merge", "merge", "`git merge --abort`"),
                                                  ("detached", "detached", "`git checkout <branch>`"),
                                                  ("ref-lock", "ref-lock", "if no git runs, remove "),
                                                  ("worktree", "broken", "core.worktree"),
                                                  ("orphan", "unborn", "`git reflog`")])
def test_git_in_the_middle_of_an_operation_is_said(tmp_path: Path, how: str, name: str, end: str) -> None:
    """A merge under way (a lone MERGE_HEAD, as an agent's program may leave it) or a detached HEAD: what bsi's writes
    meet (`git_state.stall`) is in `git.operation`, and the text says it with how to end it; idle, it is null."""
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=ENV, timeout=None).code == 0
    idle = env_json(root)["git"]
    assert idle["operation"] is None and idle["operation_end"] is None
    assert "git op" not in bsi(root, "env").out
    if how == "merge":
        head = git(root, "rev-parse", "HEAD", env=os.environ).strip()
        (root / ".git" / "MERGE_HEAD").write_text(head + "\n", encoding="utf-8")
    elif how == "worktree":  # git runs, but its work tree is another folder: no commit of the brain can land
        git(root, "config", "core.worktree", "refs", env=os.environ)
    elif how == "ref-lock":  # a git that moves the branch now, or one killed: its lock file
        branch = git(root, "symbolic-ref", "--short", "HEAD", env=os.environ).strip()
        (root / ".git" / "refs" / "heads" / f"{branch}.lock").write_text("", encoding="utf-8")
    elif how == "orphan":  # a branch with no commit while the brain's history is in the repository
        git(root, "checkout", "-q", "--orphan", "fresh", env=os.environ)
    else:
        git(root, "checkout", "-q", "--detach", env=os.environ)
    data = env_json(root)["git"]
    assert data["operation"] == name and end in data["operation_end"]
    line = next(line for line in bsi(root, "env").out.splitlines() if line.startswith("git op"))
    said = {"merge": "a merge is in progress", "detached": "HEAD is detached",
            "ref-lock": "a lock file holds the branch's ref or HEAD", "worktree": "git cannot run in this repository",
            "orphan": "HEAD's branch has no commit while the repository holds others"}
    assert said[how] in line and " is in progress" not in line.replace("a merge is in progress", ""), line
    fixed = how in ("worktree", "orphan")
    assert ("bsi writes refuse until it is fixed" if fixed else "bsi writes refuse until it ends") in line
    assert end in line
