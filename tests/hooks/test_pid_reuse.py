"""A process whose ``PID:START`` an earlier boot also gave acts for nothing that boot recorded (SPEC 21.4).

After a reboot a new agent process can get the PID and the start ticks of an
older one. A record written before this boot (a session's agent process, a
claim waiting in `pending/`, a hand-over) must not make it act for claims it
never held. Without a reboot the test stands for one: the records are those of
the live `FakeAgent` as an earlier boot would have written them (another boot
ID; or the ``PID:START`` form alone, the file dated before this boot).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from brain_tui.core.rules.authority import genuine_sessions
from brain_tui.core.sessions import agent_files, agents, handover
from brain_tui.mcp.tools import Session
from tests.hooks.fake_agent import FakeAgent
from tests.hooks.test_binding_theft import base, context, hook, open_in

OLD = "aaaaaaaa-1111-4000-8000-00000000000a"
NEW = "aaaaaaaa-2222-4000-8000-00000000000b"
OTHER_BOOT = "00000000-0000-4000-8000-000000000000"


def boot_time() -> float:
    """This boot's wall-clock start (`/proc/stat` btime)."""
    with open("/proc/stat", encoding="ascii") as handle:
        return float(next(line.split()[1] for line in handle if line.startswith("btime ")))


def earlier_boot(process: str) -> str:
    """The ID an earlier boot gave a process with the same PID and start ticks (no boot part: the same ID)."""
    pid, start, *boot = process.split(":")
    return ":".join([pid, start, *([OTHER_BOOT] if boot else [])])


def legacy(process: str) -> str:
    """The ``PID:START`` form alone, as records written before the boot ID were kept."""
    return ":".join(process.split(":")[:2])


def rewrite(path: Path, key: str, value: str, *, before_boot: bool) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**record, key: value}), encoding="utf-8")
    if before_boot:
        moment = boot_time() - 3600
        os.utime(path, (moment, moment))


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[FakeAgent]:
    one = FakeAgent(tmp_path / "agent")
    yield one
    one.close()


pytestmark = pytest.mark.skipif(not os.path.isfile("/proc/stat"), reason="start ticks since boot: Linux")


@pytest.mark.parametrize("form", ["other boot", "legacy before boot"])
def test_records_of_an_earlier_boot_give_a_same_pid_and_start_process_nothing(
        brain: Path, agent: FakeAgent, form: str) -> None:
    sess = open_in(agent, brain, "src/", OLD)
    process = agent.process
    stale = earlier_boot(process) if form == "other boot" else legacy(process)
    before_boot = form != "other boot"
    rewrite(Path(agent_files.session_path(brain, OLD)), "process", stale, before_boot=before_boot)
    now = datetime.now(UTC)
    handover.leave_pending(brain, "sess-waiting-1", stale, now)
    pending = Path(agent_files.agents_dir(brain, "pending", "sess-waiting-1.json"))
    rewrite(pending, "client", stale, before_boot=before_boot)

    assert agent_files.sessions_of_process(brain, process) == []
    assert agent_files.pending_claims(brain, process, now) == []
    assert genuine_sessions(brain, [OLD], process) == frozenset()
    assert agent_files.speaks_for_another(brain, NEW, process) == ""  # its own new session is not refused
    actor = Session(brain, client=process).actor  # an MCP server of this process
    assert sess not in actor.claims and "sess-waiting-1" not in actor.claims and OLD not in actor.agent_sessions

    # a compaction of this process's new session carries over nothing the earlier boot bound
    said = context(hook(agent, brain, "session-start", base(brain, "SessionStart", NEW, source="compact")))
    assert "carried over" not in said
    assert agents.bound_claims(brain, NEW) == [] and agents.bound_claims(brain, OLD) == [sess]


def test_a_legacy_record_of_this_boot_still_names_its_process(brain: Path, agent: FakeAgent) -> None:
    """A record written before the boot ID was recorded, in this boot, stays its agent's (an upgrade mid-session)."""
    sess = open_in(agent, brain, "src/", OLD)
    rewrite(Path(agent_files.session_path(brain, OLD)), "process", legacy(agent.process), before_boot=False)
    assert agent_files.sessions_of_process(brain, agent.process) == [OLD]
    assert genuine_sessions(brain, [OLD], agent.process) == frozenset({OLD})
    said = context(hook(agent, brain, "session-start", base(brain, "SessionStart", NEW, source="compact")))
    assert "carried over" in said and agents.bound_claims(brain, NEW) == [sess]
