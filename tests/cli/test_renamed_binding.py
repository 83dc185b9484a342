"""A claim renamed at sync (its ID was pushed first by another machine) keeps its agent: the local bindings follow
the new ID, so the agent never ends up bound to the other machine's claim and its scope (SPEC 4, 5.3, 20.1)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bsi import bsi_at, clean_env, ok
from tests.clock import live_now
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied, event, hook
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"
AGENT_B = "5b1e7c0a-2d4f-4e8b-9a6c-3f0d1e2b4a77"

bsi = bsi_at(NOW, env=racer_env("tester"), timeout=None)


def _renamed(tmp_path: Path, now: str = NOW) -> tuple[Path, str, str]:
    """Clone b opens `notes/` offline for AGENT_B under the ID clone a then pushes on `wiki/`; b syncs (at `now`)."""
    _remote, (a, b) = make_remote(tmp_path, 2)
    good_url = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    mine = ok(bsi(b, "--offline", "claim", "open", "--scope", "notes/", "--slug", "pilot",
                  "--agent-session", AGENT_B, now=now))
    theirs = ok(bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "pilot", now=now))
    assert mine == theirs
    git(b, "remote", "set-url", "origin", good_url)
    res = bsi(b, "--json", "sync", now=now)
    assert res.code == 0, res.err
    new = json.loads(res.out)["renamed"][0]["new"]
    return b, theirs, new


def test_the_agent_of_a_renamed_claim_cannot_write_the_other_machines_scope(tmp_path: Path) -> None:
    b, theirs, _new = _renamed(tmp_path)
    reason = assert_denied(hook(b, "pre-tool-use", event(b, "Write", str(b / "wiki" / "page.md"), AGENT_B)))
    assert theirs in reason  # held by the other machine's claim, not by this agent's


def test_the_agent_of_a_renamed_claim_still_writes_its_own_scope(tmp_path: Path) -> None:
    b, _theirs, _new = _renamed(tmp_path)
    assert_allowed(hook(b, "pre-tool-use", event(b, "Write", str(b / "notes" / "x.md"), AGENT_B)))


def test_the_agent_of_a_renamed_claim_is_bound_to_the_new_id(tmp_path: Path) -> None:
    b, theirs, new = _renamed(tmp_path)
    record = json.loads((b / ".brain" / "agents" / "sessions" / f"{AGENT_B}.json").read_text(encoding="utf-8"))
    assert record["sess_ids"] == [new]
    assert not (b / ".brain" / "agents" / f"{theirs}.json").exists()
    moved = json.loads((b / ".brain" / "agents" / f"{new}.json").read_text(encoding="utf-8"))
    assert moved["sess_id"] == new and moved["agent_session"] == AGENT_B


def test_an_agent_launched_for_a_renamed_claim_cannot_write_the_other_machines_scope(tmp_path: Path) -> None:
    """`bsi launch` gave the agent `BSI_SESSION=<old ID>`; its environment cannot change, the old ID is followed.

    At the machine's clock: `$BSI_SESSION` makes the hook an agent's, which judges the claim at that clock."""
    b, theirs, new = _renamed(tmp_path, live_now())
    launched = clean_env(BSI_SESSION=theirs)
    other = "9c8b7a6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
    reason = assert_denied(hook(b, "pre-tool-use", event(b, "Write", str(b / "wiki" / "page.md"), other), env=launched))
    assert new in reason
    assert_allowed(hook(b, "pre-tool-use", event(b, "Write", str(b / "notes" / "x.md"), other), env=launched))


def test_an_agent_launched_for_a_renamed_claim_acts_for_its_new_id_only(tmp_path: Path) -> None:
    now = live_now()  # an agent's renew judges the claim at the machine's clock
    b, theirs, new = _renamed(tmp_path, now)
    launched = {**racer_env("tester"), "CLAUDECODE": "1", "BSI_SESSION": theirs}
    refused = bsi(b, "claim", "renew", theirs, env=launched, now=now)
    assert refused.code == 77, refused
    assert bsi(b, "claim", "renew", new, env=launched, now=now).code == 0


def test_an_mcp_server_launched_for_a_renamed_claim_names_its_new_id(tmp_path: Path) -> None:
    from brain_tui.mcp.tools import Session

    b, theirs, new = _renamed(tmp_path)
    assert Session(b, now=NOW, environ=clean_env(BSI_SESSION=theirs)).launched == new
