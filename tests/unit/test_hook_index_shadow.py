"""The hook index is the core's conservative shadow, on brains the claim state machine generates.

Every `go` the index gives (`may_write`, `claim_can_act`, `unclaimed_free`) must be a go of
`Brain.decide_write` on the same brain at the same instant: the index may send a write to the core,
never let through one the core refuses. Brains come from `ClaimMachine` (tests/unit/test_state_machine.py:
trees, gates, pauses, aborts, closes, releases, expiries, duplicate claim files), plus locks, statuses a hand
edit left unknown (the core holds them blocking: SPEC 22) and a kernel zone in brain-compose.yml that satellites of
the tree write in and out of.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.errors import BsiError, ConflictError, TransitionRefused
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.rules import preflight as rules
from brain_tui.core.rules.claims import OpenRequest
from brain_tui.core.rules.write_request import WriteSession
from brain_tui.core.sessions import hook_index
from tests.unit.test_state_machine import ClaimMachine, state_of

#: Files in, around and outside the machine's scopes, in the kernel zone, and in other spellings.
FILES = ["a/x.md", "a/sub/f.md", "a/z.md", "A/X.md", "b/y.md", "b/q.md", "c.md", "é/café.md", "d/e.md",
         "agents/k.md", "CLAUDE.md", "a", "b/y.md/deeper"]
#: Statuses a hand edit or a bad merge leaves, that the product does not know (a word, a list, a quoted number).
ODD_STATUSES = ["weird", "[open]", "'42'"]
#: `zones: kernel:` of brain-compose.yml: none (the default zone), or entries the tree's satellites write in and
#: out of (leaf2 holds a/sub/, leaf3 b/y.md, the domain a/; a/sub/f.md, b/y.md and a/z.md are among FILES).
KERNEL_ZONES: list[list[str] | None] = [None, ["a/sub/"], ["b/y.md", "a/z.md"], ["a/sub/f.md", "b/"], ["A/Sub"]]


class ShadowRules(ClaimMachine):
    """The claim machine, with locks, statuses a hand edit left unknown and a kernel zone (the shadow's brains)."""

    @initialize(zone=st.sampled_from(KERNEL_ZONES))
    def kernel_zone(self, zone: list[str] | None) -> None:
        """brain-compose.yml names a kernel zone (a satellite may not write in it: SPEC 10), or none (the default)."""
        if zone is None:
            return
        (self.root / "brain-compose.yml").write_text("zones:\n  kernel: [" + ", ".join(zone) + "]\n",
                                                     encoding="utf-8")
        self.brain = Brain(self.root, clock=lambda: self.now, commit=False, instance="sm@test")
        assert self.brain.config.kernel_zone == tuple(zone)
        event("kernel zone set")

    @rule(index=st.integers(0, 1000), status=st.sampled_from(ODD_STATUSES), fresh=st.booleans())
    def edit_a_status_to_an_unknown_one(self, index: int, status: str, fresh: bool) -> None:
        """An open leaf's status line edited by hand to a status the product does not know: it still blocks (a
        search claim does not block, whatever its status). `fresh`: a root claim opened on d/ first (no other claim
        holds its files: only its own entry in the index keeps an unbound write of d/e.md from going through)."""
        if fresh:
            try:
                self.ids.append(self.brain.open_claim(OpenRequest(
                    scope=parse_scope(["d/"], self.root), ttl=parse_duration("2h"), instance="sm@test",
                    slug=f"c{len(self.ids)}")))
                index = len(self.ids) - 1
            except ConflictError:
                pass
        snapshot = self.brain.snapshot()
        sess = self.ids[index % len(self.ids)] if fresh else self.pick(index, {"open"})
        claim = snapshot.claim(sess)
        if claim is None or state_of(claim, self.now) != "open" or snapshot.descendants(sess):
            return
        self.step = ("edit", sess)
        path = self.root / "claims" / f"{sess}.yml"
        path.write_text(re.sub(r"^status: .*$", f"status: {status}", path.read_text(encoding="utf-8"), count=1,
                               flags=re.MULTILINE), encoding="utf-8")
        self.edited.add(sess)
        edited = self.brain.snapshot().claim(sess)
        # it blocks as written (a search claim never blocks: SPEC 5.3)
        assert edited is not None and "status-unknown" in edited.flags, edited
        assert edited.is_blocking == (edited.satellite_type != "search"), edited
        event(f"status edited to {status}")

    @rule(index=st.integers(0, 1000), file=st.sampled_from(FILES[:9]), minutes=st.sampled_from([1, 30, 120]))
    def lock(self, index: int, file: str, minutes: int) -> None:
        sess = self.pick(index)
        self.step = ("lock", sess)
        try:
            self.brain.locks.acquire(file, sess, str(minutes))
        except (BsiError, TransitionRefused):
            return
        event("lock acquired")


class ShadowMachine(ShadowRules):
    """The shadow's brains, checking the index against the core after every step."""

    @invariant()
    def the_index_never_says_go_where_the_core_refuses(self) -> None:
        snapshot = self.brain.snapshot(only_statuses=BLOCKING_STATUSES)
        index = hook_index.build(self.root, snapshot, self.brain.config)
        full = self.brain.snapshot()
        now = self.now.timestamp()
        # The files the index lets through are decided by the core in one call a session: a list of paths is
        # allowed only when every one of them is (`write_decision._all`, each judged alone, the first refusal
        # named), so the core says go to all of them exactly when it says go to each, on one reading of the brain.
        for claim in full.claims:
            if hook_index.claim_can_act(index, claim.sess_id, now):
                rules.check_claim(full, claim.sess_id)  # raises if the core refuses
            bound = [rel for rel in FILES if hook_index.may_write(index, claim.sess_id, rel, now)]
            if bound:
                decision = self.brain.decide_write(bound, WriteSession(claims=(claim.sess_id,)))
                assert decision.allowed, (claim.sess_id, bound, decision.file, decision.reason)
                event("index: go for a bound write")
        unbound = [rel for rel in FILES if hook_index.unclaimed_free(index, rel)]
        if unbound:
            decision = self.brain.decide_write(unbound, WriteSession())
            assert decision.allowed, (unbound, decision.file, decision.reason)
            event("index: go for an unbound write")


ShadowMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestHookIndexShadow = ShadowMachine.TestCase
