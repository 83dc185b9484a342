"""The hook index is the core's conservative shadow, on brains the claim state machine generates.

Every `go` the index gives (`may_write`, `claim_can_act`, `unclaimed_free`) must be a go of
`Brain.decide_write` on the same brain at the same instant: the index may send a write to the core,
never let through one the core refuses. Brains come from `ClaimMachine` (tests/unit/test_state_machine.py:
trees, gates, pauses, aborts, closes, releases, expiries, duplicate claim files), plus locks.
"""

from __future__ import annotations

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule

from brain_tui.core.errors import BsiError, TransitionRefused
from brain_tui.core.records.statuses import BLOCKING_STATUSES
from brain_tui.core.rules import preflight as rules
from brain_tui.core.rules.write_request import WriteSession
from brain_tui.core.sessions import hook_index
from tests.unit.test_state_machine import ClaimMachine

#: Files in, around and outside the machine's scopes, in the kernel zone, and in other spellings.
FILES = ["a/x.md", "a/sub/f.md", "a/z.md", "A/X.md", "b/y.md", "b/q.md", "c.md", "é/café.md", "d/e.md",
         "agents/k.md", "CLAUDE.md", "a", "b/y.md/deeper"]


class ShadowMachine(ClaimMachine):
    """The claim machine, with locks, checking the index against the core after every step."""

    @rule(index=st.integers(0, 1000), file=st.sampled_from(FILES[:9]), minutes=st.sampled_from([1, 30, 120]))
    def lock(self, index: int, file: str, minutes: int) -> None:
        sess = self.pick(index)
        self.step = ("lock", sess)
        try:
            self.brain.locks.acquire(file, sess, str(minutes))
        except (BsiError, TransitionRefused):
            return
        event("lock acquired")

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
