"""An agent's clock runs no later than the machine's (SPEC 3, 9, 21): a time ahead would end what others hold.

`--now` and `$BRAIN_NOW` are there for tests, simulations and demos. In an agent's process a time more than SPEC
3's 5 minutes ahead of the system clock would expire other sessions' locks (taken over, or removed by `lock
cleanup`) and mark their claims stale: a write at such a time is refused (77) and writes nothing. A human may
still simulate any time, and an agent may still read at one.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest

from tests import bsi as runner
from tests.bsi import INHERITED_ENV, bsi_at, clean_env, run_bsi
from tests.conftest import tree_bytes
from tests.hooks.test_hook_index import settle

FILE = "bravo/x.md"

bsi = bsi_at(None, env=INHERITED_ENV, timeout=None)
git = partial(runner.git, env=INHERITED_ENV)
AGENT = clean_env(CLAUDECODE="1")


def later(minutes: int) -> str:
    """The system clock `minutes` from now, as `--now` takes it."""
    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat(timespec="seconds")


@pytest.fixture
def brain(tmp_path: Path) -> Path:
    """A brain at the real clock where alfa holds the lock of a file for an hour."""
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    for slug in ("alfa", "bravo"):
        proc = bsi(root, "claim", "open", "--scope", f"{slug}/", "--ttl", "8h", "--slug", slug)
        assert proc.code == 0, proc.err
    alfa = next(p.stem for p in (root / "claims").glob("*alfa*.yml"))
    proc = bsi(root, "lock", "acquire", FILE, alfa, "60")
    assert proc.code == 0, proc.err
    return root


@pytest.mark.parametrize("verb", [("lock", "cleanup"), ("watchdog",)])
def test_an_agent_cannot_write_at_a_time_ahead_of_the_machines(brain: Path, verb: tuple[str, ...]) -> None:
    before = tree_bytes(brain)
    proc = bsi(brain, *verb, now=later(24 * 60), env=AGENT)
    assert proc.code == 77, proc
    assert "ahead" in proc.err and "Traceback" not in proc.err
    assert tree_bytes(brain) == before
    assert len(list((brain / "locks").glob("*.yml"))) == 1


def test_a_human_may_simulate_a_later_time(brain: Path) -> None:
    proc = bsi(brain, "--json", "lock", "cleanup", now=later(24 * 60))
    assert proc.code == 0, proc
    assert list((brain / "locks").glob("*.yml")) == []


def test_an_agent_writes_within_the_clock_skew_and_reads_at_any_time(brain: Path) -> None:
    assert bsi(brain, "claim", "list", now=later(24 * 60), env=AGENT).code == 0
    proc = bsi(brain, "watchdog", now=later(2), env=AGENT)
    assert proc.code == 0, proc
    assert len(list((brain / "locks").glob("*.yml"))) == 1


def _edit(brain: Path) -> str:
    """Claude Code's PreToolUse event for an edit of alfa's locked file."""
    import json

    return json.dumps({"session_id": "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87", "cwd": str(brain),
                       "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_01ABC",
                       "tool_input": {"file_path": str(brain / FILE), "old_string": "a", "new_string": "b"}})


def test_an_agents_hook_does_not_let_a_write_through_at_a_time_ahead(brain: Path) -> None:
    """The hook's answer is a write's permission: at `$BRAIN_NOW` two hours ahead, alfa's lock would look expired
    to bravo's agent (a client an agent's shell started with the variable set runs its hooks with it)."""
    bravo = next(p.stem for p in (brain / "claims").glob("*bravo*.yml"))
    env = {**AGENT, "BSI_SESSION": bravo}
    settle(brain)  # the hook index vouches for the brain: the hook's shortcut answers from it
    env["BRAIN_NOW"] = later(120)
    for _ in range(2):
        proc = run_bsi("hook", "pre-tool-use", brain=brain, now=None, env=env, input=_edit(brain))
        assert proc.code == 2 and "ahead" in proc.out, proc
    proc = bsi(brain, "preflight", "check", bravo, FILE, now=later(120), env=AGENT)
    assert proc.code == 77 and "ahead" in proc.err, proc


def earlier(minutes: int) -> str:
    """The system clock `minutes` ago, as `--now` takes it."""
    return later(-minutes)


@pytest.fixture
def expired(tmp_path: Path) -> tuple[Path, str]:
    """A brain at the real clock holding one claim opened 3 h ago for 1 h: expired an hour and more ago."""
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    proc = bsi(root, "claim", "open", "--scope", "delta/", "--ttl", "1h", "--slug", "delta", now=earlier(180))
    assert proc.code == 0, proc.err
    return root, proc.out.strip()


@pytest.mark.parametrize("marked", [False, True], ids=["expired", "marked-stale"])
def test_an_agent_cannot_lift_its_own_stale_claim_with_a_clock_behind(expired: tuple[Path, str],
                                                                      marked: bool) -> None:
    """At a clock two hours behind, the claim looks alive (or its watchdog mark looks dated in the future, which
    sync's skew repair takes back): a renew would make it live again at the machine's clock. An agent's renew
    judges the claim at the machine's clock: a claim that ran out is stale and not renewed (12); a mark taken back
    as suspect would be lifted, and lifting a stale claim is a human's (SPEC 6.3, 21.2): refused (77). Nothing
    written either way."""
    root, sess = expired
    if marked:
        assert bsi(root, "watchdog").code == 0
    before = tree_bytes(root)
    env = {**AGENT, "BSI_SESSION": sess}
    proc = bsi(root, "claim", "renew", sess, "--ttl", "4h", now=earlier(150), env=env)
    assert proc.code == (77 if marked else 12), proc
    assert ("release" if marked else "stale") in proc.err and "Traceback" not in proc.err
    assert tree_bytes(root) == before


def test_a_renew_at_a_clock_behind_is_a_humans_simulation_only(expired: tuple[Path, str]) -> None:
    """An agent's renew at a clock behind judges the claim at the machine's clock, where it ran out: not renewed
    (12), even when the new expiry would leave it expired; a human may simulate any time."""
    root, sess = expired
    env = {**AGENT, "BSI_SESSION": sess}
    assert bsi(root, "claim", "renew", sess, "--ttl", "1h", now=earlier(170), env=env).code == 12
    assert bsi(root, "claim", "renew", sess, "--ttl", "4h", now=earlier(150)).code == 0


@pytest.mark.parametrize("agent", [True, False], ids=["agent", "human"])
def test_a_stale_mark_from_a_clock_ahead_does_not_revive_a_claim_expired_by_this_clock(
        expired: tuple[Path, str], agent: bool) -> None:
    """A mark dated in this machine's future is suspect, but the claim it marks expired an hour ago by this clock
    too: it is stale whoever marked it, and the owner's renew does not take it back to live (SPEC 3, 6.3)."""
    root, sess = expired
    assert bsi(root, "watchdog", now=later(300)).code == 0  # a machine five hours ahead marks it
    before = tree_bytes(root)
    env = {**AGENT, "BSI_SESSION": sess} if agent else INHERITED_ENV
    proc = bsi(root, "claim", "renew", sess, "--ttl", "4h", env=env)
    assert proc.code == 12, proc
    assert "Traceback" not in proc.err
    assert tree_bytes(root) == before


def test_an_agent_cannot_revive_a_mark_made_at_the_deadline_with_a_clock_just_behind_it(tmp_path: Path) -> None:
    """A claim is stale at its deadline (SPEC 6.3), and a correct clock marks it then. An agent's renew at a `--now`
    a minute before that deadline sees the mark dated in its future and the claim within its TTL, as a mark from a
    clock ahead would be; but an agent is judged at the later of its clock and the machine's (`authority.judged`),
    where the mark is no future one: lifting it is a release, a human's (77), and nothing is written."""
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    proc = bsi(root, "claim", "open", "--scope", "echo/", "--ttl", "1h", "--slug", "echo", now=earlier(62))
    sess = proc.out.strip()
    assert json.loads(bsi(root, "--json", "watchdog").out)["marked"] == [sess]  # the machine's clock, past 2 min
    before = tree_bytes(root)
    agent = bsi(root, "claim", "renew", sess, now=earlier(3), env={**AGENT, "BSI_SESSION": sess})
    assert agent.code == 77 and "release" in agent.err and "Traceback" not in agent.err, agent
    assert tree_bytes(root) == before
    assert bsi(root, "claim", "renew", sess, now=earlier(3)).code == 0  # a human's simulation


def test_an_agent_renews_a_claim_marked_by_a_clock_ahead_within_its_ttl(tmp_path: Path) -> None:
    """The mark of a machine ahead on a claim still within its TTL by this clock is taken back by the owner's renew."""
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    proc = bsi(root, "claim", "open", "--scope", "echo/", "--ttl", "1h", "--slug", "echo", now=earlier(10))
    sess = proc.out.strip()
    assert bsi(root, "watchdog", now=later(300)).code == 0
    proc = bsi(root, "claim", "renew", sess, "--ttl", "2h", env={**AGENT, "BSI_SESSION": sess})
    assert proc.code == 0, proc
    assert "skew_revived" in (root / "claims" / f"{sess}.yml").read_text()


def test_an_agent_cannot_open_a_child_through_its_stale_claim_with_a_clock_behind(expired: tuple[Path, str]) -> None:
    """At a clock 150 min behind, the expired claim looks open and would delegate its scope to a child that, with an
    8 h TTL, is live at the machine's clock: the stale claim's work goes on past the human's release (SPEC 5.3,
    6.3). Delegation is judged at the machine's clock too: the open conflicts (10), nothing written."""
    root, sess = expired
    before = tree_bytes(root)
    env = {**AGENT, "BSI_SESSION": sess}
    proc = bsi(root, "claim", "open", "--scope", "delta/sub/", "--parent", sess, "--ttl", "8h",
               now=earlier(150), env=env)
    assert proc.code == 10, proc
    assert sess in proc.err and "Traceback" not in proc.err
    assert tree_bytes(root) == before


def test_an_agent_at_a_clock_behind_still_opens_a_child_that_ends_before_the_machines_clock(
        expired: tuple[Path, str]) -> None:
    """A child that is itself expired at the machine's clock carries nothing past it (the suite's agents run at a
    fixed past time): delegation at the agent's clock stands."""
    root, sess = expired
    env = {**AGENT, "BSI_SESSION": sess}
    proc = bsi(root, "claim", "open", "--scope", "delta/sub/", "--parent", sess, "--ttl", "1h",
               now=earlier(150), env=env)
    assert proc.code == 0, proc


@pytest.mark.parametrize(("ttl", "agent", "code"), [("8h", True, 10), (None, True, 0), ("8h", False, 0)],
                         ids=["agent-8h-child", "agent-default-ttl-child", "human-8h-child"])
def test_check_scope_at_a_clock_behind_answers_as_the_open(expired: tuple[Path, str], ttl: str | None, agent: bool,
                                                           code: int) -> None:
    """`bsi check-scope` asks what `claim open` would meet, given the same parent and TTL (the brain's default when
    none): an agent's child live at the machine's clock meets the stale parent (10); one of the default 2 h ends
    before it and meets nothing; a human's process keeps its given clock. The open that follows agrees."""
    root, sess = expired
    given = ["--ttl", ttl] if ttl else []
    env = {"env": {**AGENT, "BSI_SESSION": sess}} if agent else {}
    checked = bsi(root, "check-scope", "delta/sub/", "--parent", sess, *given, "--json", now=earlier(150), **env)
    assert checked.code == code, checked
    conflicts = json.loads(checked.out)["conflicts"]
    assert [(c["sess_id"], c["status"]) for c in conflicts] == ([(sess, "stale")] if code else []), conflicts
    opened = bsi(root, "claim", "open", "--scope", "delta/sub/", "--parent", sess, *given, now=earlier(150), **env)
    assert opened.code == code, opened


def test_an_agents_watchdog_a_few_minutes_ahead_marks_no_claim_before_the_machines_clock(tmp_path: Path) -> None:
    """A claim is expired at its deadline (SPEC 6.3), by the machine's clock for an agent: an agent's watchdog at a
    `--now` within SPEC 3's 5 minutes ahead never marks another session's claim that the machine's clock holds live
    (it would block its owner early); it writes nothing (77) rather than that mark. A human may simulate it."""
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    soon = (datetime.now(UTC) - timedelta(minutes=58)).isoformat(timespec="seconds")
    sess = bsi(root, "claim", "open", "--scope", "alfa/", "--ttl", "1h", "--slug", "alfa", now=soon).out.strip()
    before = tree_bytes(root)
    proc = bsi(root, "--json", "watchdog", now=later(4), env=AGENT)  # past its deadline by the agent's clock only
    assert proc.code == 77 and "Traceback" not in proc.err, proc
    assert f"cannot mark {sess} stale: it is live until" in proc.err and "clock ahead" in proc.err, proc.err
    assert tree_bytes(root) == before
    assert bsi(root, "--json", "watchdog", env=AGENT).json()["marked"] == []  # at the machine's clock: live
    assert bsi(root, "--json", "watchdog", now=later(4)).json()["marked"] == [sess]  # a human's simulation
