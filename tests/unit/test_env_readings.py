"""The typed views of an environment reading: every field the cockpit shows, and no crash on odd shapes."""

from __future__ import annotations

from brain_tui.core.environment.env import EnvState
from brain_tui.core.environment.env_readings import GitReading, Pm2Reading, PortsReading, SystemReading

STATE = EnvState(
    hostname="desktop", instance="prod@desktop",
    git={"version": "e3c41d2 bsi: x", "branch": "main", "dirty": ["a.md", 7], "dirty_count": 2, "upstream": "o/main",
         "ahead": 1, "behind": 0, "remote": "origin", "remote_url": "https://h/r", "last_sync": "2026-11-29T09:58:00",
         "last_sync_age_s": 120},
    pm2={"available": True, "error": None, "processes": [
        {"name": "api", "pid": 42, "status": "online", "uptime_s": 60, "restarts": 3, "cpu": 1.5, "memory": 1024,
         "port": 7700}, "not a row"]},
    ports={"listening": [{"port": 22, "address": "0.0.0.0", "pid": 801, "process": "sshd"}],
           "configured": [{"name": "api", "port": 7700, "up": True, "source": "brain-compose.yml"},
                          {"name": "BRAIN_PORT", "port": None, "source": "env", "error": "not a port number"}],
           "error": None, "note": "partial"},
    system={"load": {"1m": 0.4, "5m": 0.3, "15m": 0.2, "cpus": 4}, "memory": {"error": "denied"},
            "disk": {"percent": 63.0, "used": 1, "free": 2, "total": 3}},
)


def test_each_source_reads_as_its_typed_view() -> None:
    git = STATE.git_reading
    assert (git.branch, git.dirty, git.dirty_count, git.ahead, git.behind, git.remote, git.last_sync_age_s) == (
        "main", ("a.md",), 2, 1, 0, "origin", 120)
    assert git.known and git.error is None
    pm2 = STATE.pm2_reading
    assert pm2.available and len(pm2.processes) == 1
    proc = pm2.processes[0]
    assert (proc.name, proc.pid, proc.status, proc.restarts, proc.cpu, proc.memory, proc.port) == (
        "api", 42, "online", 3, 1.5, 1024, 7700)
    ports = STATE.ports_reading
    assert [(p.name, p.port, p.up, p.error) for p in ports.configured] == [
        ("api", 7700, True, None), ("BRAIN_PORT", None, False, "not a port number")]
    assert [(r.port, r.process) for r in ports.listening] == [(22, "sshd")] and ports.note == "partial"
    system = STATE.system_reading
    assert (system.load.one, system.load.fifteen, system.memory.error, system.disk.percent, system.disk.free) == (
        0.4, 0.2, "denied", 63.0, 2)


def test_a_failing_or_missing_source_reads_as_such() -> None:
    assert GitReading.of({"error": "git timed out"}).error == "git timed out"
    assert not GitReading.of({}).known and not SystemReading.of(None).known
    assert SystemReading.of({"error": "boom"}).error == "boom"
    assert Pm2Reading.of({"available": False, "error": "pm2 not found", "processes": "x"}).processes == ()
    odd = PortsReading.of({"configured": [{"name": 5, "port": "7700", "up": 1}]}).configured[0]
    assert (odd.name, odd.port, odd.up) == ("5", None, True)  # a port that is not a number reads as missing


def test_the_json_shape_is_untouched_by_the_views() -> None:
    before = STATE.as_dict()
    _ = (STATE.git_reading, STATE.pm2_reading, STATE.ports_reading, STATE.system_reading)
    assert STATE.as_dict() == before and before["git"]["dirty"] == ["a.md", 7]
