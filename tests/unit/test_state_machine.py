"""Random sequences of open / gate / pause / resume / abort / close / watchdog / release against the invariants.

In process, on a temporary brain without git (`Brain(..., commit=False)`), with a fake clock.
Invariants checked after every step:

- no two blocking claims with intersecting scopes unless one is an ancestor of the other or
  either is a search claim (and an open is refused exactly when a pairwise check finds a conflict);
- a pause reaches every open/waiting descendant; a resume restores each previous status
  (`waiting_human` included) of exactly the descendants that pause touched;
- no bypassed gate or pause: a claim leaves `waiting_human`/`paused` (or `stale` from them) only by a
  human's approve/reject/resume/abort/release aimed at it or at the ancestor that paused it, and nothing
  closes while an ancestor holds its tree paused;
- nothing leaves `stale` except by a release, the owner's late close (stale from `open` only), or a
  human deciding the expired gate or pause;
- every claim file stays valid YAML (the product's bounded loader and PyYAML's pure reader);
- a refused action changes no file.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import unicodedata
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
from brain_tui.core.paths.scope import parse_scope, scopes_overlap
from brain_tui.core.records.formats import held_status, normalize_status
from brain_tui.core.records.model import BrainSnapshot, Claim, tier_of
from brain_tui.core.records.statuses import KNOWN_STATUSES, TERMINAL_STATUSES
from brain_tui.core.records.yamlio import safe_load_file
from brain_tui.core.rules.claims import CloseRequest, OpenRequest
from brain_tui.core.rules.effective import effective_status, stale_origin
from brain_tui.core.rules.gates import Cascade

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
CAFE = "é/café.md"
SCOPES = ["*", "a/", "a/x.md", "a/x.md#S1", "a/x.md#s1", "a/x.md#S2", "a/sub/", "b/", "b/y.md", "c.md",
          unicodedata.normalize("NFC", CAFE), unicodedata.normalize("NFD", CAFE), "a/x.md ##  s1 ##"]
SATELLITE_TYPES = [None, "code", "brain-write", "test", "search", "domain"]
HOSTILE = 'msg: "quoted" # not a comment\n:@ ?# {x}'
#: Allowed from these effective statuses; ("stale", X) means stale from X (an expired gate or pause).
ALLOWED: dict[str, set[Any]] = {
    "request": {"open"},
    "approve": {"waiting_human", ("stale", "waiting_human")},
    "reject": {"waiting_human", ("stale", "waiting_human")},
    "pause": {"open", "waiting_human"},
    "resume": {"paused", ("stale", "paused")},
    "abort": {"open", "waiting_human", "paused", ("stale", "open"), ("stale", "waiting_human"), ("stale", "paused")},
}
HUMAN_ACTIONS = {"approve", "reject", "resume", "abort", "release"}
#: An exit trigger that gates the close (SPEC 6.6): the claim waits for the human's approval instead of closing.
GATE_TRIGGER = 'gate:human → "ship?"'
MAX_AGE = timedelta(hours=8)


def expired(claim: Claim, now: datetime) -> bool:
    """Past its expiry or 8 h after opening (read from the raw fields, not through the product)."""
    raw = claim.data
    opened = datetime.fromisoformat(str(raw.get("opened_at")))
    expires = datetime.fromisoformat(str(raw.get("expires_at")))
    return now >= min(expires, opened + MAX_AGE)  # SPEC 6.3: stale once the TTL ran out


def state_of(claim: Claim, now: datetime) -> Any:
    """The effective state: a live status, ("stale", origin) or a terminal status (a hold a hand edit hid, too)."""
    status = str(held_status(claim.data, normalize_status(str(claim.data.get("status")))))
    # a status a hand edit left unknown goes stale past its TTL too, stale from itself (`effective.stale_origin`)
    if (status in ("open", "waiting_human", "paused") or unknown_status(status)) and expired(claim, now):
        return ("stale", status)
    if status == "stale":
        origin = ("paused" if claim.data.get("paused_by") else
                  "waiting_human" if claim.data.get("gate_origin") else
                  str(held_status(claim.data, normalize_status(str(claim.data.get("stale_from"))))))
        return ("stale", origin)
    return status


def unknown_status(state: Any) -> bool:
    """A status the product does not know (a hand edit's, `state_of` keeps it as written), or stale from one past its
    TTL: it blocks (SPEC 22)."""
    origin = state[1] if isinstance(state, tuple) else state
    return isinstance(origin, str) and origin not in KNOWN_STATUSES


def held(state: Any) -> bool:
    """A gate or a pause is pending (possibly expired)."""
    return state in ("waiting_human", "paused") or state in (("stale", "waiting_human"), ("stale", "paused"))


def _ancestors(snapshot: BrainSnapshot, sess_id: str | None) -> set[str]:
    """`sess_id` and its parent chain, read from the raw `parent_satellite` fields."""
    found: set[str] = set()
    while sess_id and sess_id not in found:
        found.add(sess_id)
        claim = snapshot.claim(sess_id)
        sess_id = str(claim.data.get("parent_satellite") or "") if claim else None
    return found


def _open_chain(snapshot: BrainSnapshot, sess_id: str | None) -> set[str]:
    """`sess_id` and its ancestors while each is effectively open: delegation goes only through those."""
    found: set[str] = set()
    while sess_id and sess_id not in found:
        claim = snapshot.claim(sess_id)
        if claim is None or state_of(claim, snapshot.now) != "open":
            break
        found.add(sess_id)
        sess_id = str(claim.data.get("parent_satellite") or "")
    return found


def _paused_above(snapshot: BrainSnapshot, claim: Claim) -> bool:
    """Some ancestor holds the tree paused (paused, or stale from paused)."""
    return any(state_of(a, snapshot.now) in ("paused", ("stale", "paused")) for a in snapshot.ancestors(claim.sess_id))


def _blocking(claim: Claim) -> bool:
    """Blocks overlapping claims (SPEC 5.3): every status but a terminal one, one the product does not know too."""
    return claim.status not in TERMINAL_STATUSES and claim.satellite_type != "search"


def pairwise_conflicts(snapshot: BrainSnapshot, entries: Any, parent: str | None, sat: str | None) -> list[str]:
    """The conflicts of a would-be claim, by brute force (no ScopeIndex)."""
    if sat == "search":
        return []
    exempt = _open_chain(snapshot, parent)
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
        self.last_truth: dict[str, dict[str, Any]] = {}
        #: names of the copies written by `copy_a_claim_file` (corrupt rows by design).
        self.copies: set[str] = set()
        #: claims whose status line `edit_a_held_status_line` changed by hand.
        self.edited: set[str] = set()

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # -- helpers --------------------------------------------------------------------------------------
    def snap(self) -> BrainSnapshot:
        return self.brain.snapshot()

    def files(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for folder in ("claims", "signals")
                for p in sorted((self.root / folder).glob("*.yml"))}

    def pick(self, index: int, statuses: set[Any] | None = None) -> str:
        """A claim ID; among claims in these effective states when given and there are any (the allowed rows)."""
        if statuses:
            fitting = [c.sess_id for c in self.snap().claims if state_of(c, self.now) in statuses]
            if fitting:
                return fitting[index % len(fitting)]
        return self.ids[index % len(self.ids)]

    # -- rules ------------------------------------------------------------------------------------------
    @initialize()
    def open_a_tree(self) -> None:
        """pilot (a/ b/) → domain (a/) → two leaves; a leaf of the pilot on b/y.md (`_tree`: opened once, copied)."""
        template, ids = _tree()
        shutil.copytree(template, self.root, symlinks=True, dirs_exist_ok=True)
        self.ids.extend(ids)

    @rule(scope=st.lists(st.sampled_from(SCOPES), min_size=1, max_size=2, unique=True),
          parent_index=st.none() | st.integers(0, 100), sat=st.sampled_from(SATELLITE_TYPES),
          ttl=st.sampled_from(["30m", "2h", "8h"]), gated=st.booleans())
    def open(self, scope: list[str], parent_index: int | None, sat: str | None, ttl: str, gated: bool) -> None:
        snapshot = self.snap()
        live = [c.sess_id for c in snapshot.claims if not c.is_terminal]
        parent = live[parent_index % len(live)] if parent_index is not None and live else None
        self.step = ("open", parent)
        entries = parse_scope(scope, self.root)
        expected = pairwise_conflicts(snapshot, entries, parent, sat)
        before = self.files()
        req = OpenRequest(scope=entries, ttl=parse_duration(ttl), instance="sm@test", satellite_type=sat,
                          level="domain" if sat == "domain" else None, parent=parent, slug=f"c{len(self.ids)}",
                          story=HOSTILE, on_done=GATE_TRIGGER if gated else None)
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
        state = state_of(claim, self.now)
        # An abort ends any claim not terminal, one whose status the product does not know too (a human's decision).
        allowed = (state in ALLOWED[action] or (action == "abort" and unknown_status(state))) and \
            not (action == "resume" and _paused_above(before_snap, claim))
        try:
            out = getattr(self.brain.gates, action)(sess, HOSTILE, by="human:sm")
        except TransitionRefused:
            event(f"{action} refused")
            assert not allowed, f"{action} refused from {state}"
            assert self.files() == before_files
            return
        assert allowed, f"{action} allowed from {state}"
        event(f"{action} ok from {state}" + (" with cascade" if isinstance(out, Cascade) and out.touched else ""))
        after = self.snap()
        now_claim = after.claim(sess)
        assert now_claim is not None
        status = now_claim.status
        descendants = before_snap.descendants(sess)
        if action in ("pause", "resume", "abort"):
            assert isinstance(out, Cascade) and out.status == status, "the outcome names the status written"
        else:
            # An approval past opening + 8 h writes ``open`` and says ``stale``: the status every rule reads.
            shown = "stale" if isinstance(state_of(now_claim, self.now), tuple) else status
            assert not isinstance(out, Cascade) and out.status == shown, "the outcome names the status in force"
        if action == "request":
            assert status == "waiting_human"
        elif action == "approve":
            closing = claim.data.get("gate_origin") == "close"
            # An expired requested gate is renewed by the approval while opening + 8 h leaves time (SPEC 6.4);
            # past it a claim marked stale stays stale, an unmarked one is written open (and is stale).
            renewable = claim.opened_at is None or claim.opened_at + timedelta(hours=8) > self.now
            assert status == ("closed" if closing else "open" if renewable or claim.status != "stale" else "stale")
        elif action == "reject":
            assert status == "failed"
        elif action == "pause":
            assert status == "paused"
            for d in descendants:
                now_d = after.claim(d.sess_id)
                assert now_d is not None
                if state_of(d, self.now) in ("open", "waiting_human"):
                    assert (now_d.data["paused_by"], now_d.data["paused_from"]) == (sess, d.status), "pause missed one"
            assert isinstance(out, Cascade)
            assert sorted(out.touched) == sorted(d.sess_id for d in descendants
                                                 if state_of(d, self.now) in ("open", "waiting_human"))
        elif action == "resume":
            previous = claim.data.get("paused_from", "open")
            if claim.status == "stale":
                assert status == "stale" and now_claim.data["stale_from"] == previous
            else:
                assert status == previous
            for d in descendants:
                now_d = after.claim(d.sess_id)
                assert now_d is not None
                if d.data.get("paused_by") == sess and held(state_of(d, self.now)):
                    assert "paused_by" not in now_d.data, "resume left a child paused"
                elif d.data.get("paused_by") != sess:
                    assert now_d.status == d.status, "resume touched a claim paused by someone else"
        elif action == "abort":
            assert status == "failed"
            for d in descendants:
                now_d = after.claim(d.sess_id)
                assert now_d is not None
                # The cascade ends every live descendant, one whose status the product does not know too while
                # its TTL runs (past it, it is stale for every decision: it waits for a human's look at it by name).
                state_d = state_of(d, self.now)
                live = state_d in ("open", "waiting_human", "paused") or \
                    (isinstance(state_d, str) and unknown_status(state_d))
                assert now_d.status == ("failed" if live else d.status), (d.sess_id, state_d)

    @rule(index=st.integers(0, 1000), result=st.sampled_from(["ok", "partial", "failed"]), valid=st.booleans())
    def close(self, index: int, result: str, valid: bool) -> None:
        sess = self.pick(index, {"open", ("stale", "open")} if valid else None)
        self.step = ("close", sess)
        snapshot, before = self.snap(), self.files()
        claim = snapshot.claim(sess)
        assert claim is not None
        state = state_of(claim, self.now)
        allowed = state in ("open", ("stale", "open")) and not _paused_above(snapshot, claim)
        req = CloseRequest(status=result, tests_total=3, tests_passed=3, tests_failed=0, files=["f.md"])
        try:
            outcome = self.brain.close_claim(sess, req)
        except TransitionRefused:
            assert not allowed, f"close refused from {state}"
            assert self.files() == before
            return
        except TierRefused:
            event("close refused: tier 3")
            assert tier_of(claim) == 3
            assert any(not d.is_terminal for d in snapshot.descendants(sess))
            assert self.files() == before
            return
        assert allowed, f"close allowed from {state}"
        gates = result in ("ok", "partial") and claim.data.get("on_done") == GATE_TRIGGER  # SPEC 6.6
        event(f"close ok from {state}" + (" (gated)" if gates else ""))
        expected = "waiting_human" if gates else "closed"
        assert outcome.status == expected and self.snap().claim(sess).status == expected  # type: ignore[union-attr]

    @rule(index=st.integers(0, 1000), valid=st.booleans())
    def release(self, index: int, valid: bool) -> None:
        stale_states = {("stale", x) for x in ("open", "waiting_human", "paused")}
        sess = self.pick(index, stale_states if valid else None)
        self.step = ("release", sess)
        claim, before = self.snap().claim(sess), self.files()
        assert claim is not None
        state = state_of(claim, self.now)
        # stale from a status a hand edit left unknown is stale too (`effective_status`): a human may release it
        releasable = state in stale_states or (isinstance(state, tuple) and unknown_status(state))
        try:
            self.brain.release_claim(sess, "crashed", by="human:sm")
        except TransitionRefused:
            assert not releasable and self.files() == before
            return
        event("release ok")
        assert releasable and self.snap().claim(sess).status == "released"  # type: ignore[union-attr]

    @rule(index=st.integers(0, 1000), ttl=st.sampled_from(["1h", "4h", "8h"]))
    def renew(self, index: int, ttl: str) -> None:
        sess = self.pick(index)
        self.step = ("renew", sess)
        claim, before = self.snap().claim(sess), self.files()
        assert claim is not None
        state = state_of(claim, self.now)
        try:
            self.brain.renew_claim(sess, parse_duration(ttl))
        except TransitionRefused:
            assert state not in ("open", "waiting_human", "paused") and self.files() == before
            return
        assert state in ("open", "waiting_human", "paused"), f"renew allowed from {state}"
        event(f"renew ok from {state}")
        renewed = self.snap().claim(sess)
        assert renewed is not None and renewed.opened_at is not None and renewed.expires_at is not None
        assert renewed.status == claim.status
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
            # Any claim past its TTL that is neither terminal nor marked already, one whose status a hand edit left
            # unknown too (it blocks as written, SPEC 22: the last door holds it as held before, `_checked_as`).
            assert before.claim(sess).status not in (*TERMINAL_STATUSES, "stale")  # type: ignore[union-attr]
            assert after.claim(sess).status == "stale"  # type: ignore[union-attr]
            assert after.claim(sess).data["stale_from"] == before.claim(sess).status  # type: ignore[union-attr]
        for claim in after.claims:
            if claim.status not in (*TERMINAL_STATUSES, "stale"):
                assert claim.opened_at is not None and claim.expires_at is not None
                # The watchdog marks whatever expired (SPEC 6.3); every decision already treats a claim past its
                # expiry as stale (effective status).
                assert self.now < claim.expires_at and self.now < claim.opened_at + timedelta(hours=8)
                assert effective_status(claim, self.now) == claim.status

    @rule(minutes=st.sampled_from([30, 125, 241, 481]))
    def time_passes(self, minutes: int) -> None:
        """Claims expire with no watchdog run: every decision must already see them stale."""
        self.now += timedelta(minutes=minutes)
        self.step = ("time", None)

    @rule(index=st.integers(0, 1000), fields=st.booleans(), stale=st.booleans())
    def edit_a_held_status_line(self, index: int, fields: bool, stale: bool) -> None:
        """`status: paused|waiting_human` edited to `open` (or to `stale` from `open`) by hand, its hold's fields
        removed too or not: no human lifted anything, so the product still reads the hold (stale from it: no late
        close goes past it), and the human's own verb still lifts it (SPEC 6.3, 21.2)."""
        sess = self.pick(index, {"paused", "waiting_human"})
        claim = self.snap().claim(sess)
        assert claim is not None
        held_as = str(claim.data.get("status"))
        if held_as not in ("paused", "waiting_human") or isinstance(state_of(claim, self.now), tuple):
            return
        self.step = ("edit", sess)
        path = self.root / "claims" / f"{sess}.yml"
        drop = ("paused_by:", "paused_from:", "gate_origin:", "gate_message:") if fields else ()
        written = "stale\nstale_from: open" if stale else "open"
        lines = path.read_text(encoding="utf-8").replace(f"\nstatus: {held_as}\n", f"\nstatus: {written}\n")
        path.write_text("".join(x for x in lines.splitlines(keepends=True) if not x.startswith(drop)),
                        encoding="utf-8")
        self.edited.add(sess)
        event(f"edit {held_as} to {written.split()[0]}" + (" (fields too)" if fields else ""))
        now = self.snap().claim(sess)
        assert now is not None
        read = stale_origin(now, self.now) if stale else now.status
        assert read == held_as, f"an edit of the status line lifted {held_as}"

    @rule(index=st.integers(0, 1000), status=st.sampled_from(["closed", "released", "open"]),
          name=st.sampled_from([".orig.yml", ".yaml", "-copy.yml"]))
    def copy_a_claim_file(self, index: int, status: str, name: str) -> None:
        """A copy of a claim file with another status never hides the real claim (`claims/<id>.yml` wins)."""
        sess = self.pick(index)
        self.step = ("copy", sess)
        real = self.root / "claims" / f"{sess}.yml"
        text = real.read_text(encoding="utf-8")
        copy = real.with_name(sess + name)
        copy.write_text(text.replace(f"status: {self.snap().claim(sess).status}", f"status: {status}"),  # type: ignore[union-attr]
                        encoding="utf-8")
        self.copies.add(copy.name)
        snapshot = self.snap()
        assert snapshot.claim(sess).path == f"claims/{sess}.yml"  # type: ignore[union-attr]
        assert any(bad.path == f"claims/{copy.name}" and "duplicate" in bad.reason for bad in snapshot.corrupt)

    # -- invariants -----------------------------------------------------------------------------------------
    @invariant()
    def invariants_hold(self) -> None:
        snapshot = self.snap()
        truth = self.truth()
        self.check_no_two_blocking_claims_intersect_outside_a_tree(truth)
        self.check_no_gate_or_pause_is_bypassed(snapshot, truth)
        self.check_every_claim_file_is_valid_yaml(snapshot)
        self.last_truth = truth

    def truth(self) -> dict[str, dict[str, Any]]:
        """Each claim as its own file `claims/<id>.yml` says (never through the product's choice of file), its
        status read as `held_status` reads it: a file the product wrote reads as written (no legitimate sequence
        of pauses, resumes and gates is misread), one edited by hand as the hold it still records."""
        docs = {p.stem: safe_load_file(p) for p in sorted((self.root / "claims").glob("*.yml"))
                if p.name not in self.copies}
        for sess, doc in docs.items():
            read = str(held_status(doc, normalize_status(str(doc["status"]))))
            assert read == doc["status"] or sess in self.edited, f"{sess} written {doc['status']}, read {read}"
            doc["status"] = read
        return docs

    def check_no_two_blocking_claims_intersect_outside_a_tree(self, truth: dict[str, dict[str, Any]]) -> None:
        def entries(doc: dict[str, Any]) -> Any:
            raw = doc["scope"]
            return parse_scope([unicodedata.normalize("NFC", x) for x in raw] if isinstance(raw, list)
                               else unicodedata.normalize("NFC", raw), self.root)

        def chain(sess: str) -> set[str]:
            found: set[str] = set()
            current: str | None = sess
            while current and current not in found and current in truth:
                found.add(current)
                current = truth[current].get("parent_satellite")
            return found

        blocking = [(sess, entries(doc)) for sess, doc in truth.items()
                    if doc["status"] not in ("closed", "failed", "released") and doc.get("satellite_type") != "search"]
        for i, (a, a_scope) in enumerate(blocking):
            for b, b_scope in blocking[i + 1:]:
                if scopes_overlap(a_scope, b_scope) is None:
                    continue
                assert a in chain(b) or b in chain(a), f"{a} and {b} both hold an intersecting scope"

    def check_no_gate_or_pause_is_bypassed(self, snapshot: BrainSnapshot, truth: dict[str, dict[str, Any]]) -> None:
        """A claim leaves a pending gate or pause only by a human's decision on it or on its pausing ancestor."""
        action, target = self.step
        for sess, doc in truth.items():
            previous = self.last_truth.get(sess)
            if previous is None:
                continue
            before = state_of(_as_claim(previous), self.now)
            after = state_of(_as_claim(doc), self.now)
            if held(before) and not held(after):
                # on the claim itself, or on an ancestor (the one that paused it, or an abort's cascade)
                assert action in HUMAN_ACTIONS and target in _ancestors(snapshot, sess), (
                    f"{sess} left {before} for {after} by {action} on {target}")
            if doc["status"] == "stale" and previous.get("status") == "stale" and after != before:
                assert action in HUMAN_ACTIONS, f"{sess} changed {before} → {after} by {action}"
            if previous.get("status") == "stale" and doc["status"] != "stale":
                # an approval renews an expired gate while opening + 8 h leaves time (see `gate`): open again;
                # an owner's late close whose `on_done` is a human gate stops at that gate (SPEC 6.6, see `close`)
                gated_close = ("close", "waiting_human") if doc.get("on_done") == GATE_TRIGGER else ("close", "closed")
                assert target == sess and (action, doc["status"]) in (
                    ("release", "released"), ("close", "closed"), ("reject", "failed"), ("abort", "failed"),
                    ("approve", "closed"),
                    ("approve", "open"),
                    gated_close,
                ), f"{sess} left stale by {action} on {target}: {doc['status']}"
            if doc["status"] == "closed" and previous.get("status") != "closed":
                assert not held(before) or action == "approve", f"{sess} closed past {before}"

    def check_every_claim_file_is_valid_yaml(self, snapshot: BrainSnapshot) -> None:
        assert all(bad.path[len("claims/"):] in self.copies for bad in snapshot.corrupt), snapshot.corrupt
        for path in (self.root / "claims").glob("*.yml"):
            if path.name in self.copies:
                continue
            raw = path.read_bytes()
            if raw in _CHECKED:
                continue
            data = safe_load_file(path)
            assert isinstance(data, dict) and data["sess_id"] == path.stem
            assert yaml.load(raw.decode("utf-8"), Loader=yaml.SafeLoader) == data  # pure-Python reader agrees
            _CHECKED.add(raw)


def _as_claim(doc: dict[str, Any]) -> Claim:
    """A minimal Claim over a raw mapping, for `state_of`."""
    return Claim(sess_id=str(doc["sess_id"]), path="", data=doc, scope=(), scope_text="", status=str(doc["status"]),
                 type="", instance="", story="", opened_at=None, expires_at=None, closed_at=None, parent=None,
                 satellite_type=None, level="leaf")


#: Claim file contents already proven valid (the pure-Python YAML reader is slow).
_CHECKED: set[bytes] = set()
#: The brain `open_a_tree` starts every example from, and its claims' IDs in opening order (made by `_tree`).
_TREE: tuple[Path, list[str]] | None = None


def _tree() -> tuple[Path, list[str]]:
    """The starting tree, opened through the product once per process at T0 (removed at exit).

    Every example starts from a copy of this brain, files and cache as the opens left them: the same
    five opens in every example cost more than the rest of a short example.
    """
    global _TREE
    if _TREE is None:
        root = Path(tempfile.mkdtemp(prefix="bsi-sm-tree-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        for folder in ("claims", "signals", "locks", "breath"):
            (root / folder).mkdir()
        brain = Brain(root, clock=lambda: T0, commit=False, instance="sm@test")
        plan = [("pilot", ["a/", "b/"], None, None), ("domain", ["a/"], "pilot", "domain"),
                ("leaf1", ["a/x.md#S1"], "domain", "code"), ("leaf2", ["a/sub/"], "domain", "brain-write"),
                ("leaf3", ["b/y.md"], "pilot", "test")]
        made: dict[str, str] = {}
        for slug, scope, parent, sat in plan:
            made[slug] = brain.open_claim(OpenRequest(
                scope=parse_scope(scope, root), ttl=parse_duration("4h"), instance="sm@test",
                type="pilote" if parent is None else None, satellite_type=sat,
                level="domain" if sat == "domain" else None, parent=made[parent] if parent else None, slug=slug))
        _TREE = root, list(made.values())
    return _TREE

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
