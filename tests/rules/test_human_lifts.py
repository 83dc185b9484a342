"""A human's transition refuses in an agent's process at the last door of every write too (SPEC 21.2).

`Brain`'s verbs refuse before they stage anything; below them an agent's Python could
build the same write with the rule functions (`gates.gate_approve` over a `ChangeSet`)
and hand it to `write_path.apply`. That write refuses (exit 77) and leaves the brain
as it was; a session's own transitions (open, renew, gate request, close, the
watchdog's stale mark) still go through from an agent's process.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core import write_path
from brain_tui.core.brain import Brain
from brain_tui.core.errors import BsiError, HumanOnly
from brain_tui.core.records.changes import ChangeSet
from brain_tui.core.rules import gates
from tests.bsi import NOW
from tests.clock import live_now
from tests.conftest import load_claim, tree_bytes
from tests.rules.facade import at, open_in

AGENT = {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "aaaaaaaa-1111-4000-8000-0000000000aa"}


def as_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in AGENT.items():
        monkeypatch.setenv(name, value)


def staged(brain: Path, build: Callable[[ChangeSet], object]) -> tuple[Brain, ChangeSet]:
    b = Brain(brain, now=NOW)
    cs = ChangeSet(b.snapshot(), "bsi: by hand")
    build(cs)
    return b, cs


def refused_as_agent(brain: Path, monkeypatch: pytest.MonkeyPatch, build: Callable[[ChangeSet], object],
                     error: type[BsiError] = HumanOnly) -> BsiError:
    """The moves `build` stages (as a human's process, so nothing refuses them there), applied from an agent's
    process: refused with `error` (77) and nothing written; the process is a human's again afterwards."""
    b, cs = staged(brain, build)
    before = tree_bytes(brain)
    as_agent(monkeypatch)
    try:
        with pytest.raises(error) as refused:
            write_path.apply(b, cs)
        assert refused.value.exit_code == 77 and tree_bytes(brain) == before
        return refused.value
    finally:
        for name in AGENT:
            monkeypatch.delenv(name)


@pytest.fixture
def gated(brain: Path) -> str:
    sess = open_in(brain, "src/", story="work")
    at(brain).gates.request(sess, "deploy?")
    return sess


DECISIONS: dict[str, Callable[[ChangeSet, str], object]] = {
    "approve": lambda cs, s: gates.gate_approve(cs, s, "alice", "ok"),
    "reject": lambda cs, s: gates.gate_reject(cs, s, "alice", "no"),
    "pause": lambda cs, s: gates.gate_pause(cs, s, "alice"),
    "abort": lambda cs, s: gates.gate_abort(cs, s, "alice", "stop"),
}


@pytest.mark.parametrize("verb", sorted(DECISIONS))
def test_a_decision_built_below_the_facade_refuses_in_an_agents_process(brain: Path, gated: str, verb: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    b, cs = staged(brain, lambda cs: DECISIONS[verb](cs, gated))
    before = tree_bytes(brain)
    as_agent(monkeypatch)
    with pytest.raises(HumanOnly) as refused:
        write_path.apply(b, cs)
    assert refused.value.exit_code == 77 and gated in refused.value.message
    assert tree_bytes(brain) == before and load_claim(brain, gated)["status"] == "waiting_human"


def test_a_session_s_own_transitions_still_write_from_an_agents_process(brain: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    as_agent(monkeypatch)
    now = live_now()  # an agent's process judges its claim at the machine's clock: the claim lives at it
    mine = open_in(brain, "docs/", story="mine", now=now)
    monkeypatch.setenv("BSI_SESSION", mine)  # as a launcher gives it
    at(brain, now).renew_claim(mine)
    at(brain, now).gates.request(mine, "ok?")
    assert load_claim(brain, mine)["status"] == "waiting_human"


def test_a_close_the_watchdog_and_a_late_close_still_write_from_an_agents_process(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.core.rules.claims import CloseRequest

    as_agent(monkeypatch)
    failed = open_in(brain, "docs/", story="mine", slug="fail")
    monkeypatch.setenv("BSI_SESSION", failed)
    at(brain).close_claim(failed, CloseRequest(status="failed"))
    late = open_in(brain, "lib/", story="mine", slug="late")
    monkeypatch.setenv("BSI_SESSION", late)
    at(brain, "2026-11-29T20:00:00Z").watchdog()  # past 8 h: stale, from an agent's process too
    assert load_claim(brain, late)["status"] == "stale"
    at(brain, "2026-11-29T20:05:00Z").close_claim(late, CloseRequest(status="ok"))
    assert load_claim(brain, late)["status"] == "closed"


def test_the_owner_closes_a_claim_written_without_a_status_line_from_an_agents_process(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.core.rules.claims import CloseRequest

    mine = open_in(brain, "docs/", story="mine")
    path = brain / "claims" / f"{mine}.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: open\n", ""), encoding="utf-8")
    as_agent(monkeypatch)
    monkeypatch.setenv("BSI_SESSION", mine)  # open by the format's rule (SPEC 6.2): no status, no closing time
    at(brain).close_claim(mine, CloseRequest(status="ok"))
    assert load_claim(brain, mine)["status"] == "closed"


def test_the_owner_revives_a_stale_mark_from_a_clock_ahead_from_an_agents_process(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At the machine's own clock: the mark dated hours ahead of it is suspect whichever clock judges."""
    real = datetime.now(UTC).replace(microsecond=0)
    mine = open_in(brain, "docs/", story="mine", ttl="1h", now=(real - timedelta(minutes=30)).isoformat())
    at(brain, (real + timedelta(hours=2)).isoformat()).watchdog()  # a watchdog whose clock runs hours ahead
    assert load_claim(brain, mine)["status"] == "stale"
    as_agent(monkeypatch)
    monkeypatch.setenv("BSI_SESSION", mine)
    at(brain, real.isoformat()).renew_claim(mine)  # the mark is in this machine's future: derived, suspect
    assert load_claim(brain, mine)["status"] == "open"


def test_a_stale_mark_in_the_past_of_the_machines_clock_is_no_agents_to_lift(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same renew at a clock set behind the machine's: the mark looks dated in the future only to that clock.
    Taking it back lifts a stale mark, a human's (77), and nothing is written."""
    mine = open_in(brain, "docs/", story="mine", ttl="1h")
    at(brain, "2026-11-29T12:00:00Z").watchdog()  # in the past of the machine's clock
    before = tree_bytes(brain)
    as_agent(monkeypatch)
    monkeypatch.setenv("BSI_SESSION", mine)
    with pytest.raises(HumanOnly, match="release"):
        at(brain, "2026-11-29T10:30:00Z").renew_claim(mine)
    assert tree_bytes(brain) == before and load_claim(brain, mine)["status"] == "stale"


def test_sync_marks_a_lost_claim_failed_from_an_agents_process(brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.core.rules import reconcile

    mine = open_in(brain, "docs/", story="mine")
    theirs = open_in(brain, "lib/", story="theirs", slug="theirs")
    # the remote's claim on the same scope, as the sync's rebase leaves it beside the local one
    first = "sess-20261129-0955-first"
    text = (brain / "claims" / f"{mine}.yml").read_text(encoding="utf-8").replace(mine, first)
    (brain / "claims" / f"{first}.yml").write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "claims"], cwd=brain, check=True)
    subprocess.run(["git", "commit", "-qm", f"bsi: open claim {first}"], cwd=brain, check=True)
    lost = [reconcile.LostClaim(sess_id=mine, scope="docs/", winners=())]
    as_agent(monkeypatch)
    at(brain).mutate_local(lambda cs: reconcile.mark_lost(cs, lost))  # what `bsi sync` does after integrating
    assert load_claim(brain, mine)["status"] == "failed" and load_claim(brain, theirs)["status"] == "open"


STALE_MARK = {"status": "stale", "stale_from": "open", "stale_since": "2026-11-29T10:00:00+00:00",
              "stale_reason": "TTL expired without close"}
HOLD_TRACES = ("paused_by", "paused_from", "gate_origin", "gate_history")


@pytest.mark.parametrize("hold", ["pause", "gate"])
def test_a_hold_forgotten_in_a_stale_mark_refuses_in_an_agents_process(brain: Path, hold: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # A stale mark is a session's (the watchdog's) move, but one that forgets the pause or the gate it was
    # marked over lifts it: the late close of a claim stale from open would end it, and its scope be claimed again.
    sess = open_in(brain, "src/", story="work")
    if hold == "pause":
        at(brain).gates.pause(sess, "hold")
    else:
        at(brain).gates.request(sess, "deploy?")
    held = load_claim(brain, sess)["status"]
    b, cs = staged(brain, lambda cs: cs.update_claim(sess, STALE_MARK, remove=HOLD_TRACES))
    before = tree_bytes(brain)
    as_agent(monkeypatch)
    with pytest.raises(HumanOnly) as refused:
        write_path.apply(b, cs)
    assert refused.value.exit_code == 77 and sess in refused.value.message
    assert tree_bytes(brain) == before and load_claim(brain, sess)["status"] == held
    monkeypatch.delenv("CLAUDECODE")
    monkeypatch.delenv("CLAUDE_CODE_SESSION_ID")
    at(brain, "2026-11-29T20:00:00Z").watchdog()  # a true mark keeps the hold: stale from it
    mark = load_claim(brain, sess)
    assert mark["status"] == "stale" and mark["stale_from"] == held
    for build in (lambda cs: cs.update_claim(sess, {"stale_from": "open"}, remove=HOLD_TRACES),
                  lambda cs: cs.update_claim(sess, {"status": "closed", "closed_at": "2026-11-29T20:01:00+00:00"})):
        refused_as_agent(brain, monkeypatch, build)


def test_a_move_called_derived_is_one_only_when_the_rule_it_names_would_make_it(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `ChangeSet.derived` marks the moves of the derived rules (a skewed stale mark revived, a claim lost at
    # sync); an agent's Python sets it as easily. A resume, or an abort of a claim no winner holds, written as
    # derived is still a human's decision.
    from brain_tui.core.rules import reconcile

    paused = open_in(brain, "src/", story="work")
    at(brain).gates.pause(paused, "hold")
    other = open_in(brain, "lib/", story="theirs", slug="theirs")
    lost = [reconcile.LostClaim(sess_id=other, scope="lib/", winners=())]

    def resume_as_derived(cs: ChangeSet) -> None:
        gates.gate_resume(cs, paused, "alice")
        cs.derived.add(paused)

    for build in (resume_as_derived, lambda cs: reconcile.mark_lost(cs, lost)):
        refused_as_agent(brain, monkeypatch, build)
    assert load_claim(brain, paused)["status"] == "paused" and load_claim(brain, other)["status"] == "open"


def test_a_held_child_is_never_lost_to_its_own_held_ancestor(brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A lost claim a human holds may be marked failed by an agent's sync (it never held its scope in git), but only
    # for a winner outside its tree: a paused pilot conflicts with its paused child by the chain rule alone, and
    # an agent's Python would end any held child by calling it lost to its own pilot.
    from brain_tui.core.rules import conflicts, reconcile

    pilot = open_in(brain, "src/", type="pilote", slug="pilot", story="work")
    child = open_in(brain, "src/a.md", parent=pilot, satellite_type="code", slug="child", story="work")
    at(brain).gates.pause(pilot, "hold the tree")
    assert load_claim(brain, child)["status"] == "paused"
    winner = conflicts.Conflict(sess_id=pilot, instance="", scope="src/", status="paused", overlap="src/")
    lost = [reconcile.LostClaim(sess_id=child, scope="src/a.md", winners=(winner,))]
    refused_as_agent(brain, monkeypatch, lambda cs: reconcile.mark_lost(cs, lost))
    assert load_claim(brain, child)["status"] == "paused"


@pytest.mark.parametrize("held", [True, False], ids=["paused", "open"])
def test_a_pilot_is_never_lost_to_its_own_child(brain: Path, monkeypatch: pytest.MonkeyPatch, held: bool) -> None:
    # The other way round: a child meets its pilot's scope too; failing the pilot as "lost" to it would end the
    # human's pause of the tree (or another session's open pilot) and free the pilot's scope.
    from brain_tui.core.rules import conflicts, reconcile

    pilot = open_in(brain, "src/", type="pilote", slug="pilot", story="work")
    child = open_in(brain, "src/a.md", parent=pilot, satellite_type="code", slug="child", story="work")
    if held:
        at(brain).gates.pause(pilot, "hold the tree")
    status = "paused" if held else "open"
    winner = conflicts.Conflict(sess_id=child, instance="", scope="src/a.md", status=status, overlap="src/a.md")
    lost = [reconcile.LostClaim(sess_id=pilot, scope="src/", winners=(winner,))]
    refused_as_agent(brain, monkeypatch, lambda cs: reconcile.mark_lost(cs, lost))
    assert load_claim(brain, pilot)["status"] == status


def test_a_held_claim_is_never_lost_to_an_ancestor_past_a_link_that_does_not_read(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A claim file that does not read in the middle of a tree hides the chain above it (SPEC 22: nothing is known
    # there, it fails closed). The pilot beyond it still meets the held grandchild's scope by the chain rule: it is
    # no winner at sync, and an agent's Python must not end the human's pause by calling the grandchild lost to it.
    from brain_tui.core.rules import conflicts, reconcile
    from tests.conftest import claim_file

    pilot = open_in(brain, "src/", type="pilote", slug="pilot", story="work")
    middle = open_in(brain, "src/a/", parent=pilot, satellite_type="code", slug="middle", story="work")
    held = open_in(brain, "src/a/x.md", parent=middle, satellite_type="code", slug="held", story="work")
    at(brain).gates.pause(held, "hold this one")
    assert load_claim(brain, held)["status"] == "paused"
    claim_file(brain, middle).write_text("sess_id: [unclosed\n", encoding="utf-8")
    winner = conflicts.Conflict(sess_id=pilot, instance="", scope="src/", status="open", overlap="src/a/x.md")
    lost = [reconcile.LostClaim(sess_id=held, scope="src/a/x.md", winners=(winner,))]
    refused_as_agent(brain, monkeypatch, lambda cs: reconcile.mark_lost(cs, lost))
    assert load_claim(brain, held)["status"] == "paused"


def test_an_agent_never_ends_its_paused_pilot_by_cutting_a_child_loose_and_calling_the_pilot_lost_to_it(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The child meets its pilot's scope by the chain rule. An agent's Python cuts its own paused child loose of the
    # tree (a write of its own claim), then calls the pilot lost to that child: the human's pause of the pilot
    # must survive both writes.
    from brain_tui.core.rules import conflicts, reconcile

    mine = AGENT["CLAUDE_CODE_SESSION_ID"]
    pilot = open_in(brain, "src/", type="pilote", slug="pilot", story="work", agent_session=mine)
    child = open_in(brain, "src/a.md", parent=pilot, satellite_type="code", slug="child", story="work",
                    agent_session=mine)
    at(brain).gates.pause(pilot, "hold the tree")
    b, cs = staged(brain, lambda cs: cs.update_claim(child, {}, remove=("parent_satellite",)))
    as_agent(monkeypatch)
    try:
        write_path.apply(b, cs)
    except BsiError as refused:
        assert refused.exit_code == 10  # cut loose, the child would hold its pilot's scope from another tree
    finally:
        for name in AGENT:
            monkeypatch.delenv(name)
    assert load_claim(brain, child)["parent_satellite"] == pilot
    winner = conflicts.Conflict(sess_id=child, instance="", scope="src/a.md", status="paused", overlap="src/a.md")
    lost = [reconcile.LostClaim(sess_id=pilot, scope="src/", winners=(winner,))]
    b, cs = staged(brain, lambda cs: reconcile.mark_lost(cs, lost))
    as_agent(monkeypatch)
    try:
        write_path.apply(b, cs)
    except BsiError as refused:
        assert refused.exit_code == 77
    assert load_claim(brain, pilot)["status"] == "paused"


def test_a_held_claim_is_never_lost_to_a_search_claim_on_its_scope_nor_a_search_claim_to_it(
        brain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A search claim meets any scope without conflict (SPEC 5.3): neither side of such an overlap lost at sync.
    from brain_tui.core.rules import conflicts, reconcile

    held = open_in(brain, "src/", story="work", slug="held")
    search = open_in(brain, "src/", story="look", slug="look", type="satellite", satellite_type="search")
    at(brain).gates.pause(held, "hold")
    at(brain).gates.pause(search, "hold too")
    for loser, winner in ((held, search), (search, held)):
        won = conflicts.Conflict(sess_id=winner, instance="", scope="src/", status="paused", overlap="src/")
        lost = [reconcile.LostClaim(sess_id=loser, scope="src/", winners=(won,))]
        refused_as_agent(brain, monkeypatch, lambda cs, lost=lost: reconcile.mark_lost(cs, lost))
    assert load_claim(brain, held)["status"] == load_claim(brain, search)["status"] == "paused"
