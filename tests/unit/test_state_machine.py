"""Random sequences of open / gate / pause / resume / abort / close / watchdog / release against the invariants.

In process, on a temporary brain without git (`Brain(..., commit=False)`), with a fake clock.
Invariants checked after every step:

- no two blocking claims with intersecting scopes unless one is an ancestor of the other or
  either is a search claim (and an open is refused exactly when a pairwise check finds a conflict);
- a pause reaches every open/waiting descendant; a resume restores each previous status
  (`waiting_human` included) of exactly the descendants that pause touched;
- nothing leaves `stale` except by a release or the owner's close;
- every claim file stays valid YAML (the product's bounded loader and PyYAML's pure reader);
- a refused action changes no file.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from brain_tui.core.brain import Brain
from brain_tui.core.clock import parse_duration
from brain_tui.core.errors import ConflictError, InvalidData, TierRefused, TransitionRefused
from brain_tui.core.model import BLOCKING_STATUSES, BrainSnapshot, Claim
from brain_tui.core.protocol import Cascade, CloseRequest, OpenRequest, tier_of
from brain_tui.core.scope import parse_scope, scopes_overlap
from brain_tui.core.yamlio import safe_load_file

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
SCOPES = ["*", "a/", "a/x.md", "a/x.md#S1", "a/x.md#s1", "a/x.md#S2", "a/sub/", "b/", "b/y.md", "c.md"]
SATELLITE_TYPES = [None, "code", "brain-write", "test", "search", "domain"]
HOSTILE = 'msg: "quoted" # not a comment\n:@ ?# {x}'
ALLOWED = {
    "request": {"open"},
    "approve": {"waiting_human"},
    "reject": {"waiting_human"},
    "pause": {"open", "waiting_human"},
    "resume": {"paused"},
    "abort": {"open", "waiting_human", "paused"},
}


def _ancestors(snapshot: BrainSnapshot, sess_id: str | None) -> set[str]:
    """`sess_id` and its parent chain, read from the raw `parent_satellite` fields."""
    found: set[str] = set()
    while sess_id and sess_id not in found:
        found.add(sess_id)
        claim = snapshot.claim(sess_id)
        sess_id = str(claim.data.get("parent_satellite") or "") if claim else None
    return found


def _blocking(claim: Claim) -> bool:
    return claim.status in BLOCKING_STATUSES and claim.satellite_type != "search"


def pairwise_conflicts(snapshot: BrainSnapshot, entries: Any, parent: str | None, sat: str | None) -> list[str]:
    """The conflicts of a would-be claim, by brute force (no ScopeIndex)."""
    if sat == "search":
        return []
    exempt = _ancestors(snapshot, parent)
    return [c.sess_id for c in snapshot.claims
            if _blocking(c) and c.sess_id not in exempt and scopes_overlap(c.scope, entries)]


class ClaimMachine(RuleBasedStateMachine):
    """Drives one brain through random actions."""

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="bsi-sm-"))
        for folder in ("claims", "signals", "locks", "breath"):
            (self.root / folder).mkdir()
        self.now = T0
        self.brain = Brain(self.root, clock=lambda: self.now, commit=False, instance="sm@test")
        self.ids: list[str] = []
        self.step: tuple[str, str | None] = ("init", None)
        self.last_status: dict[str, str] = {}

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # -- helpers --------------------------------------------------------------------------------------
    def snap(self) -> BrainSnapshot:
        return self.brain.snapshot()

    def files(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for folder in ("claims", "signals")
                for p in sorted((self.root / folder).glob("*.yml"))}

    def pick(self, index: int, statuses: set[str] | None = None) -> str:
        """A claim ID; among claims in `statuses` when given and there are any (to reach the allowed rows)."""
        if statuses:
            fitting = [c.sess_id for c in self.snap().claims if c.status in statuses]
            if fitting:
                return fitting[index % len(fitting)]
        return self.ids[index % len(self.ids)]

    # -- rules ------------------------------------------------------------------------------------------
    @initialize()
    def open_a_tree(self) -> None:
        """pilot (a/ b/) → domain (a/) → two leaves; a leaf of the pilot on b/y.md."""
        plan = [("pilot", ["a/", "b/"], None, None), ("domain", ["a/"], "pilot", "domain"),
                ("leaf1", ["a/x.md#S1"], "domain", "code"), ("leaf2", ["a/sub/"], "domain", "brain-write"),
                ("leaf3", ["b/y.md"], "pilot", "test")]
        made: dict[str, str] = {}
        for slug, scope, parent, sat in plan:
            made[slug] = self.brain.open_claim(OpenRequest(
                scope=parse_scope(scope, self.root), ttl=parse_duration("4h"), instance="sm@test",
                type="pilote" if parent is None else None, satellite_type=sat,
                level="domain" if sat == "domain" else None, parent=made[parent] if parent else None, slug=slug))
            self.ids.append(made[slug])

    @rule(scope=st.lists(st.sampled_from(SCOPES), min_size=1, max_size=2, unique=True),
          parent_index=st.none() | st.integers(0, 100), sat=st.sampled_from(SATELLITE_TYPES),
          ttl=st.sampled_from(["30m", "2h", "8h"]))
    def open(self, scope: list[str], parent_index: int | None, sat: str | None, ttl: str) -> None:
        snapshot = self.snap()
        live = [c.sess_id for c in snapshot.claims if not c.is_terminal]
        parent = live[parent_index % len(live)] if parent_index is not None and live else None
        self.step = ("open", parent)
        entries = parse_scope(scope, self.root)
        expected = pairwise_conflicts(snapshot, entries, parent, sat)
        before = self.files()
        req = OpenRequest(scope=entries, ttl=parse_duration(ttl), instance="sm@test", satellite_type=sat,
                          level="domain" if sat == "domain" else None, parent=parent, slug=f"c{len(self.ids)}",
                          story=HOSTILE)
        try:
            sess = self.brain.open_claim(req)
        except ConflictError as exc:
            event("open refused: conflict")
            assert expected, "refused although no blocking claim intersects"
            assert sorted(c["sess_id"] for c in exc.payload["conflicts"]) == sorted(expected)
            assert self.files() == before
            return
        assert not expected, f"opened over {expected}"
        event(f"open ok ({'child' if parent else 'root'})")
        self.ids.append(sess)
        claim = self.snap().claim(sess)
        assert claim is not None and claim.status == "open" and claim.parent == parent

    @rule(index=st.integers(0, 1000), valid=st.booleans())
    def request(self, index: int, valid: bool) -> None:
        self.gate("request", index, valid)

    @rule(index=st.integers(0, 1000), valid=st.booleans(), approve=st.booleans())
    def decide(self, index: int, valid: bool, approve: bool) -> None:
        self.gate("approve" if approve else "reject", index, valid)

    @rule(index=st.integers(0, 1000), valid=st.booleans())
    def pause(self, index: int, valid: bool) -> None:
        self.gate("pause", index, valid)

    @rule(index=st.integers(0, 1000), valid=st.booleans())
    def resume(self, index: int, valid: bool) -> None:
        self.gate("resume", index, valid)

    @rule(index=st.integers(0, 1000), valid=st.booleans())
    def abort(self, index: int, valid: bool) -> None:
        self.gate("abort", index, valid)

    def gate(self, action: str, index: int, valid: bool) -> None:
        """Run one gate action and check its row of the table."""
        sess = self.pick(index, ALLOWED[action] if valid else None)
        self.step = (action, sess)
        before_snap, before_files = self.snap(), self.files()
        claim = before_snap.claim(sess)
        assert claim is not None
        try:
            out = self.brain.gates.act(action, sess, HOSTILE, by="human:sm")
        except TransitionRefused:
            event(f"{action} refused")
            assert claim.status not in ALLOWED[action]
            assert self.files() == before_files
            return
        assert claim.status in ALLOWED[action], f"{action} allowed from {claim.status}"
        event(f"{action} ok" + (" with cascade" if isinstance(out, Cascade) and out.touched else ""))
        after = self.snap()
        status = after.claim(sess).status  # type: ignore[union-attr]
        descendants = before_snap.descendants(sess)
        if action in ("pause", "resume", "abort"):
            assert isinstance(out, Cascade) and out.status == status, "the outcome names the status written"
        else:
            assert not isinstance(out, Cascade) and out.status == status, "the outcome names the status written"
        if action == "request":
            assert status == "waiting_human"
        elif action == "approve":
            assert status == "open"
        elif action == "reject":
            assert status == "failed"
        elif action == "pause":
            assert status == "paused"
            for d in descendants:
                now_d = after.claim(d.sess_id)
                assert now_d is not None and now_d.status not in ("open", "waiting_human"), "pause missed one"
                if d.status in ("open", "waiting_human"):
                    assert (now_d.data["paused_by"], now_d.data["paused_from"]) == (sess, d.status)
            assert isinstance(out, Cascade)
            assert sorted(out.touched) == sorted(d.sess_id for d in descendants
                                                 if d.status in ("open", "waiting_human"))
        elif action == "resume":
            assert status == claim.data.get("paused_from", "open")
            for d in descendants:
                now_d = after.claim(d.sess_id)
                assert now_d is not None
                if d.status == "paused" and d.data.get("paused_by") == sess:
                    assert now_d.status == d.data["paused_from"], "resume lost the previous status"
                else:
                    assert now_d.status == d.status, "resume touched a claim paused by someone else"
        elif action == "abort":
            assert status == "failed"
            for d in descendants:
                now_d = after.claim(d.sess_id)
                assert now_d is not None
                expected = "failed" if d.status in ("open", "waiting_human", "paused") else d.status
                assert now_d.status == expected

    @rule(index=st.integers(0, 1000), result=st.sampled_from(["ok", "partial", "failed"]), valid=st.booleans())
    def close(self, index: int, result: str, valid: bool) -> None:
        sess = self.pick(index, {"open", "stale"} if valid else None)
        self.step = ("close", sess)
        snapshot, before = self.snap(), self.files()
        claim = snapshot.claim(sess)
        assert claim is not None
        req = CloseRequest(status=result, tests_total=3, tests_passed=3, tests_failed=0, files=["f.md"])
        try:
            outcome = self.brain.close_claim(sess, req)
        except TransitionRefused:
            assert claim.status not in ("open", "stale")
            assert self.files() == before
            return
        except TierRefused:
            event("close refused: tier 3")
            assert tier_of(claim) == 3
            assert any(not d.is_terminal for d in snapshot.descendants(sess))
            assert self.files() == before
            return
        assert claim.status in ("open", "stale")
        event(f"close ok from {claim.status}")
        assert outcome.status == "closed" and self.snap().claim(sess).status == "closed"  # type: ignore[union-attr]

    @rule(index=st.integers(0, 1000), valid=st.booleans())
    def release(self, index: int, valid: bool) -> None:
        sess = self.pick(index, {"stale"} if valid else None)
        self.step = ("release", sess)
        claim, before = self.snap().claim(sess), self.files()
        assert claim is not None
        try:
            self.brain.release_claim(sess, "crashed", by="human:sm")
        except TransitionRefused:
            assert claim.status != "stale" and self.files() == before
            return
        event("release ok")
        assert claim.status == "stale" and self.snap().claim(sess).status == "released"  # type: ignore[union-attr]

    @rule(index=st.integers(0, 1000), ttl=st.sampled_from(["1h", "4h", "8h"]))
    def renew(self, index: int, ttl: str) -> None:
        sess = self.pick(index)
        self.step = ("renew", sess)
        claim, before = self.snap().claim(sess), self.files()
        assert claim is not None
        try:
            self.brain.renew_claim(sess, parse_duration(ttl))
        except TransitionRefused:
            assert claim.status != "open" and self.files() == before
            return
        renewed = self.snap().claim(sess)
        assert renewed is not None and renewed.opened_at is not None and renewed.expires_at is not None
        assert renewed.expires_at <= renewed.opened_at + timedelta(hours=8)

    @rule(minutes=st.sampled_from([0, 5, 30, 60, 125, 241, 480]))
    def watchdog(self, minutes: int) -> None:
        self.now += timedelta(minutes=minutes)
        self.step = ("watchdog", None)
        before = self.snap()
        report = self.brain.watchdog()
        after = self.snap()
        if report.marked:
            event("watchdog marked")
        for sess in report.marked:
            assert before.claim(sess).status in ("open", "paused", "waiting_human")  # type: ignore[union-attr]
            assert after.claim(sess).status == "stale"  # type: ignore[union-attr]
        for claim in after.claims:
            if claim.status in ("open", "paused", "waiting_human"):
                assert claim.opened_at is not None and claim.expires_at is not None
                assert self.now < claim.expires_at and self.now < claim.opened_at + timedelta(hours=8)

    # -- invariants -----------------------------------------------------------------------------------------
    @invariant()
    def invariants_hold(self) -> None:
        snapshot = self.snap()
        self.check_no_two_blocking_claims_intersect_outside_a_tree(snapshot)
        self.check_nothing_leaves_stale_but_release_or_owner_close(snapshot)
        self.check_every_claim_file_is_valid_yaml(snapshot)

    def check_no_two_blocking_claims_intersect_outside_a_tree(self, snapshot: BrainSnapshot) -> None:
        blocking = [c for c in snapshot.claims if _blocking(c)]
        for i, a in enumerate(blocking):
            for b in blocking[i + 1:]:
                if scopes_overlap(a.scope, b.scope) is None:
                    continue
                related = a.sess_id in _ancestors(snapshot, b.sess_id) or b.sess_id in _ancestors(snapshot, a.sess_id)
                assert related, f"{a.sess_id} {a.scope_text} and {b.sess_id} {b.scope_text} both block"

    def check_nothing_leaves_stale_but_release_or_owner_close(self, snapshot: BrainSnapshot) -> None:
        action, target = self.step
        current = {c.sess_id: c.status for c in snapshot.claims}
        for sess, previous in self.last_status.items():
            if previous == "stale" and current.get(sess) != "stale":
                assert target == sess and (action, current[sess]) in (("release", "released"), ("close", "closed")), (
                    f"{sess} left stale by {action} on {target}: {current.get(sess)}")
        self.last_status = current

    def check_every_claim_file_is_valid_yaml(self, snapshot: BrainSnapshot) -> None:
        assert not snapshot.corrupt, snapshot.corrupt
        for path in (self.root / "claims").glob("*.yml"):
            raw = path.read_bytes()
            if raw in _CHECKED:
                continue
            data = safe_load_file(path)
            assert isinstance(data, dict) and data["sess_id"] == path.stem
            assert yaml.load(raw.decode("utf-8"), Loader=yaml.SafeLoader) == data  # pure-Python reader agrees
            _CHECKED.add(raw)


#: Claim file contents already proven valid (the pure-Python YAML reader is slow).
_CHECKED: set[bytes] = set()

ClaimMachine.TestCase.settings = settings(
    max_examples=50,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestClaimStateMachine = ClaimMachine.TestCase


def test_invalid_data_is_not_swallowed() -> None:
    """The machine expects refusals as TransitionRefused/TierRefused; bad data still raises InvalidData."""
    root = Path(tempfile.mkdtemp(prefix="bsi-sm-"))
    try:
        for folder in ("claims", "signals"):
            (root / folder).mkdir()
        brain = Brain(root, clock=lambda: T0, commit=False, instance="sm@test")
        sess = brain.open_claim(OpenRequest(scope=parse_scope("a/"), ttl=parse_duration("1h"), instance="sm@test"))
        try:
            brain.gates.reject(sess, "   ", by="human:sm")
        except InvalidData:
            pass
        else:  # pragma: no cover - the assertion is the point
            raise AssertionError("reject without a reason was accepted")
    finally:
        shutil.rmtree(root, ignore_errors=True)
