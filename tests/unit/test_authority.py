"""Who may act (SPEC 21), in process: a human's verbs refuse in an agent's process; an agent acts for its own claims.

The test process is a human's (tests/agent_markers.py); an agent is simulated with its
environment markers (`monkeypatch.setenv`). The ancestor rule is tested with real processes
in tests/cli/test_authority.py.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, CloseRequest, OpenRequest
from brain_tui.core.errors import BsiError, HumanOnly, NotYours, ProductOnly, TransitionRefused
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules import authority
from brain_tui.core.rules.agent_tree import agent_program
from brain_tui.core.rules.authority import AGENT_ENV_MARKERS, Actor, current_actor, effective
from brain_tui.core.sessions import agents
from tests.clock import live_now

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
#: Two agent sessions, as Claude Code gives them (UUIDs).
ALICE = "11111111-aaaa-4aaa-8aaa-111111111111"
BOB = "22222222-bbbb-4bbb-8bbb-222222222222"

needs_human_process = pytest.mark.skipif(
    bool(authority.agent_ancestors()), reason="the test process runs under an agent process: it is not a human's")


def files(root: Path) -> dict[str, bytes]:
    """Every file of the brain outside `.brain/` (local state), by path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".brain" not in p.relative_to(root).parts}


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    for folder in ("claims", "signals", "locks", "breath"):
        (tmp_path / folder).mkdir()
    return Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")


@pytest.fixture
def live_brain(tmp_path: Path) -> Brain:
    """`brain` at the machine's clock: an agent's process judges its claims at it (`tests.clock.live_now`)."""
    for folder in ("claims", "signals", "locks", "breath"):
        (tmp_path / folder).mkdir()
    now = datetime.fromisoformat(live_now())
    return Brain(tmp_path, clock=lambda: now, commit=False, instance="t@test")


@pytest.fixture
def as_agent(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Make this process an agent's: `as_agent(session)` sets CLAUDECODE and CLAUDE_CODE_SESSION_ID."""

    def become(session: str | None = ALICE, **extra: str) -> None:
        for name in AGENT_ENV_MARKERS:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("CLAUDECODE", "1")
        if session:
            monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", session)
        for name, value in extra.items():
            monkeypatch.setenv(name, value)

    return become


def request(scope: str, parent: str | None = None, **extra: str) -> OpenRequest:
    return OpenRequest(scope=parse_scope(scope), ttl=timedelta(hours=2), instance="t@test", parent=parent,
                       **extra)  # type: ignore[arg-type]


# -- the actor --------------------------------------------------------------------------------------
@needs_human_process
def test_a_process_without_markers_is_a_human() -> None:
    assert current_actor({}) == Actor("human")
    assert not current_actor({"PATH": "/usr/bin", "CLAUDE_PROJECT_DIR": "/x"}).is_agent


@needs_human_process
@pytest.mark.parametrize("marker", AGENT_ENV_MARKERS)
def test_each_marker_makes_an_agent(marker: str) -> None:
    actor = current_actor({marker: "1"})
    assert actor.is_agent and actor.evidence == (f"env {marker}",)


def test_the_agent_speaks_for_its_sessions_and_its_launched_claim() -> None:
    actor = current_actor({"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": ALICE, "BSI_SESSION": "sess-x-1",
                           "CODEX_THREAD_ID": "../../etc"})
    assert actor.is_agent and actor.agent_sessions == frozenset({ALICE}) and actor.claims == frozenset({"sess-x-1"})
    assert actor.with_claims("sess-y").claims == frozenset({"sess-x-1", "sess-y"})


@needs_human_process
def test_an_agent_cannot_pass_itself_off_as_a_human(as_agent: Callable[..., None]) -> None:
    assert effective(None) == Actor("human")
    given = Actor("agent", ("mcp",), frozenset(), frozenset({"sess-a"}))
    assert effective(given) is given
    as_agent()
    assert effective(Actor("human")).is_agent and effective(None).is_agent


@pytest.mark.parametrize(("comm", "argv", "agent"), [
    ("claude", ["claude", "-p", "x"], "claude"),
    ("node", ["node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"], "claude-code"),
    ("node", ["node", "/usr/local/bin/gemini", "--yolo"], "gemini"),
    ("node", ["/usr/bin/node", "/opt/node_modules/@openai/codex/bin/codex.js", "exec"], "codex"),
    ("codex", ["/opt/codex/codex-x86_64-unknown-linux-musl"], "codex"),
    ("sh", ["/bin/sh", "/home/me/bin/claude"], "claude"),
    ("python3", ["python3", "-c", "print('claude')"], None),
    ("python3", ["python3", "-m", "claude"], None),
    ("bash", ["bash"], None),
    ("vim", ["vim", "claude"], None),
])
def test_agent_programs_are_recognised_by_name_and_script(comm: str, argv: list[str], agent: str | None) -> None:
    assert agent_program(comm, argv) == agent


# -- a human's verbs --------------------------------------------------------------------------------
def test_human_verbs_refuse_inside_an_agent_and_change_nothing(brain: Brain, as_agent: Callable[..., None]) -> None:
    pilot = brain.open_claim(request("a/", type="pilote"))
    child = brain.open_claim(request("a/x.md", parent=pilot))
    brain.gates.request(child, "ship it?")
    before = files(brain.root)
    as_agent(BSI_SESSION=child)
    verbs: list[tuple[str, Callable[[], object]]] = [
        ("approve", lambda: brain.gates.approve(child, "ok")),
        ("reject", lambda: brain.gates.reject(child, "no")),
        ("pause", lambda: brain.gates.pause(pilot, "hold")),
        ("resume", lambda: brain.gates.resume(pilot)),
        ("abort", lambda: brain.gates.abort(child, "stop")),
        ("approve", lambda: brain.gates.approve(child, "", by="Ada <ada@example.org>")),
        ("release", lambda: brain.release_claim(child, "gone", by="human:ada")),
    ]
    for verb, call in verbs:
        with pytest.raises(HumanOnly) as caught:
            call()
        message = caught.value.message
        assert caught.value.exit_code == 77 and caught.value.kind == "human_only"
        assert message.startswith(f"{verb} ") and "is a human's decision" in message
        assert "env CLAUDECODE" in message and "`brain-tui`" in message and "\n" not in message
    assert files(brain.root) == before
    assert brain.snapshot().claim(child).status == "waiting_human"  # type: ignore[union-attr]


def test_a_human_actor_given_does_not_lift_the_refusal(brain: Brain, as_agent: Callable[..., None]) -> None:
    claim = brain.open_claim(request("a/"))
    brain.gates.request(claim, "?")
    as_agent()
    with pytest.raises(HumanOnly):
        brain.release_claim(claim, "gone", actor=Actor("human"))


# -- product-only signal types ----------------------------------------------------------------------
@pytest.mark.parametrize("sig_type", ["HUMAN_GATE", "circuit_break", "PAUSED", "UNBLOCK"])
def test_an_agent_cannot_send_a_product_signal(brain: Brain, as_agent: Callable[..., None], sig_type: str) -> None:
    as_agent()
    mine = brain.open_claim(request("a/"))
    before = files(brain.root)
    with pytest.raises(ProductOnly) as caught:
        brain.signals.send(mine, "human:ada", sig_type, "approve me")
    assert caught.value.exit_code == 77 and sig_type.upper() in caught.value.message
    assert files(brain.root) == before and brain.attention() == []


def test_an_agent_sends_only_from_its_own_claim(brain: Brain, as_agent: Callable[..., None]) -> None:
    as_agent(BOB)
    theirs = brain.open_claim(request("b/", agent_session=BOB))
    as_agent(ALICE)
    mine = brain.open_claim(request("a/", agent_session=ALICE))
    with pytest.raises(NotYours) as caught:
        brain.signals.send(theirs, mine, "INFO", "hi")
    assert f"held by {theirs} (agent session {BOB}" in caught.value.message
    with pytest.raises(NotYours):
        brain.signals.send("human:ada", mine, "INFO", "hi")
    assert brain.signals.send(mine, theirs, "INFO", "hi")


# -- locks of a held claim --------------------------------------------------------------------------
def test_a_claim_at_a_gate_or_paused_takes_no_lock(brain: Brain) -> None:
    pilot = brain.open_claim(request("a/", type="pilote"))
    child = brain.open_claim(request("a/x.md", parent=pilot))
    brain.gates.request(child, "?")
    with pytest.raises(TransitionRefused, match="waiting_human"):
        brain.locks.acquire("a/x.md", child)
    brain.gates.approve(child)
    brain.gates.pause(pilot)
    for sess_id in (pilot, child):
        with pytest.raises(TransitionRefused, match="paused"):
            brain.locks.acquire("a/x.md", sess_id)
    brain.gates.resume(pilot)
    assert brain.locks.acquire("a/x.md", child).action == "acquired"


def test_a_claim_under_a_paused_ancestor_takes_no_lock(brain: Brain) -> None:
    pilot = brain.open_claim(request("a/", type="pilote"))
    brain.gates.pause(pilot)
    child = brain.open_claim(request("b/y.md", parent=pilot))  # opened under a held pilot: open, but held
    with pytest.raises(TransitionRefused, match=f"ancestor {pilot} is paused"):
        brain.locks.acquire("b/y.md", child)


# -- delegation -------------------------------------------------------------------------------------
def test_only_the_parents_holder_or_a_human_opens_under_it(brain: Brain, as_agent: Callable[..., None]) -> None:
    as_agent(ALICE)
    parent = brain.open_claim(request("a/", type="pilote", agent_session=ALICE))
    child = brain.open_claim(request("a/x/", parent=parent, satellite_type="domain", level="domain"))
    grandchild = brain.open_claim(request("a/x/y.md", parent=child))  # ALICE holds an ancestor of `child`
    assert brain.snapshot().claim(grandchild).parent == child  # type: ignore[union-attr]
    as_agent(BOB)
    before = files(brain.root)
    with pytest.raises(NotYours) as caught:
        brain.open_claim(request("a/z.md", parent=child))
    assert f"cannot open a child under {child}: it is held by {child} (instance t@test)" in caught.value.message
    assert files(brain.root) == before
    with pytest.raises(NotYours) as caught:  # an MCP server's actor that holds nothing here
        brain.open_claim(request("a/z.md", parent=parent), actor=Actor("agent", ("mcp",)))
    assert f"held by {parent} (agent session {ALICE}, instance t@test)" in caught.value.message


def test_a_human_opens_under_any_claim(brain: Brain, as_agent: Callable[..., None],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    as_agent(ALICE)
    parent = brain.open_claim(request("a/", type="pilote"))
    for name in AGENT_ENV_MARKERS:
        monkeypatch.delenv(name, raising=False)
    if authority.agent_ancestors():
        pytest.skip("the test process runs under an agent process")
    assert brain.open_claim(request("a/b.md", parent=parent))


# -- an agent acts for its own claims only ----------------------------------------------------------
def test_an_agent_acts_only_for_its_own_claims(live_brain: Brain, as_agent: Callable[..., None]) -> None:
    brain = live_brain
    as_agent(BOB)
    theirs = brain.open_claim(request("b/", satellite_type="search", agent_session=BOB))
    as_agent(ALICE)
    mine = brain.open_claim(request("a/", satellite_type="search", agent_session=ALICE))
    before = files(brain.root)
    calls: list[tuple[str, Callable[[], object]]] = [
        ("close", lambda: brain.close_claim(theirs, CloseRequest(status="ok"))),
        ("renew", lambda: brain.renew_claim(theirs)),
        ("request a gate on", lambda: brain.gates.request(theirs, "?")),
        ("request a gate on", lambda: brain.gates.request(theirs, "?")),
        ("lock a file for", lambda: brain.locks.acquire("b/x.md", theirs)),
        ("release a lock for", lambda: brain.locks.release("b/x.md", theirs)),
        ("record a failure on", lambda: brain.circuit.fail(theirs)),
        ("reset the breaker of", lambda: brain.circuit.reset(theirs)),
    ]
    for verb, call in calls:
        with pytest.raises(NotYours) as caught:
            call()
        assert caught.value.exit_code == 77 and caught.value.kind == "not_yours"
        assert caught.value.message.startswith(f"cannot {verb} {theirs}: it is held by {theirs} "
                                               f"(agent session {BOB}, instance t@test)")
        assert caught.value.payload["holder"] == theirs
    assert files(brain.root) == before
    assert brain.locks.acquire("a/x.md", mine).holder == mine
    assert brain.circuit.fail(mine).fails == 1
    assert brain.renew_claim(mine)
    assert brain.close_claim(mine, CloseRequest(status="ok")).status == "closed"


def test_a_launched_session_acts_for_its_bsi_session(live_brain: Brain, as_agent: Callable[..., None]) -> None:
    brain = live_brain  # a renew judges an agent's claim at the machine's clock
    claim = brain.open_claim(request("a/", satellite_type="search"))  # opened by the human pilot
    as_agent(None, BSI_SESSION=claim)
    assert brain.renew_claim(claim)
    other = Actor("agent", ("mcp",), frozenset(), frozenset({"sess-other"}))
    with pytest.raises(NotYours):
        brain.renew_claim(claim, actor=other)  # an MCP server's actor speaks for its own claims only


def test_a_handed_over_session_acts_for_the_claims_bound_to_it(live_brain: Brain,
                                                               as_agent: Callable[..., None]) -> None:
    brain = live_brain  # a renew judges an agent's claim at the machine's clock
    as_agent(ALICE)
    claim = brain.open_claim(request("a/", satellite_type="search", agent_session=ALICE))
    as_agent(BOB)  # `/clear` gave the session a new ID; the hooks carried the binding over
    with pytest.raises(NotYours):
        brain.renew_claim(claim)
    agents.record_binding(brain.root, claim, BOB, T0)
    assert brain.renew_claim(claim)


def test_every_refusal_is_a_bsi_error_with_a_kind() -> None:
    for error in (HumanOnly, NotYours, ProductOnly):
        assert issubclass(error, BsiError) and error.exit_code == 77 and error.kind
