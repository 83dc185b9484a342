"""A human's pause made on one clone stops its session's opens made on another that had not seen it (SPEC 6.3, 21, 22).

An agent on clone B whose session a human paused on clone A opens a claim there before B syncs: B's tree did not hold
the pause, so the open passed. Its sync brings the pause in: the human's decision came first, so that open is lost
(marked failed, as a claim another machine's claim beat), and its edit tools write nothing through it. A claim the
session opened and pushed before the pause is work the human's pause already found: it stays.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from tests.bsi import ok, run_bsi
from tests.clock import live_now
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied, event, hook
from tests.mcp.test_mcp_own_session import A
from tests.reliability.harness import git, make_remote, racer_env


def _at(live: datetime, minutes: int) -> str:
    return (live - timedelta(minutes=minutes)).isoformat(timespec="seconds")


def test_an_open_made_on_a_clone_that_had_not_seen_the_pause_is_lost_at_its_sync(tmp_path: Path) -> None:
    live = datetime.fromisoformat(live_now())
    remote, (a, b) = make_remote(tmp_path, 2)
    human = racer_env("tester")
    agent = {**racer_env("agent"), "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": A}
    held = ok(run_bsi("--sync", "claim", "open", "--scope", "src/", "--agent-session", A, "--story", "a",
                      brain=a, now=_at(live, 30), env=human))
    ok(run_bsi("sync", brain=b, now=_at(live, 30), env=human))
    before = ok(run_bsi("--sync", "claim", "open", "--scope", "docs/", "--story", "before", brain=b,
                        now=_at(live, 25), env=agent))  # pushed before the pause: the human's pause found it
    ok(run_bsi("--sync", "gate", "pause", held, "hold", brain=a, now=_at(live, 20), env=human))
    after = ok(run_bsi("claim", "open", "--scope", "wiki/", "--story", "after", brain=b, now=_at(live, 10),
                       env=agent))
    run = run_bsi("sync", brain=b, now=_at(live, 5), env=agent)
    assert run.code == 10, run  # a claim lost, as `bsi sync` says of every one
    assert after in run.out + run.err and held in run.out + run.err, run
    ok(run_bsi("sync", brain=a, now=_at(live, 4), env=human))
    for clone in (a, b):
        shown = run_bsi("--json", "claim", "show", after, brain=clone, now=_at(live, 4), env=human).json()
        assert shown["status"] == "failed" and shown["lost_to"] == held, shown
        assert run_bsi("--json", "claim", "show", before, brain=clone, now=_at(live, 4),
                       env=human).json()["status"] == "open"
    assert f"bsi: sync lost {after}" in git(remote, "log", "--format=%s", "main")
    assert_denied(hook(b, "pre-tool-use", event(b, "Write", str(b / "wiki" / "x.md"), session=A)))
    assert_allowed(hook(b, "pre-tool-use", event(b, "Write", str(b / "docs" / "x.md"), session=A)))


def test_an_open_dated_before_the_pause_by_the_agent_is_lost_too(tmp_path: Path) -> None:
    """An agent's `--now` may run behind the machine's clock: dated before the pause, an open made after it (and
    pushed after it) would pass as one the pause found. No time an agent gives can tell it: an open the pause's clone
    could not see, not pushed when the pause landed, is lost at its sync, whatever time it bears."""
    live = datetime.fromisoformat(live_now())
    _remote, (a, b) = make_remote(tmp_path, 2)
    human = racer_env("tester")
    agent = {**racer_env("agent"), "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": A}
    held = ok(run_bsi("--sync", "claim", "open", "--scope", "src/", "--agent-session", A, "--story", "a",
                      brain=a, now=_at(live, 30), env=human))
    ok(run_bsi("sync", brain=b, now=_at(live, 30), env=human))
    ok(run_bsi("--sync", "gate", "pause", held, "hold", brain=a, now=_at(live, 10), env=human))
    backdated = ok(run_bsi("claim", "open", "--scope", "wiki/", "--story", "after", brain=b, now=_at(live, 25),
                           env=agent))
    run = run_bsi("sync", brain=b, now=_at(live, 5), env=agent)
    assert run.code == 10 and backdated in run.out + run.err, run
    shown = run_bsi("--json", "claim", "show", backdated, brain=b, now=_at(live, 4), env=human).json()
    assert shown["status"] == "failed" and shown["lost_to"] == held, shown
    assert_denied(hook(b, "pre-tool-use", event(b, "Write", str(b / "wiki" / "x.md"), session=A)))
