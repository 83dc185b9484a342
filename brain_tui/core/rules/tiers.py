"""Tiers: what a close must show, by the claim's level (SPEC 6.5).

Tier 1 (atomic) needs a result; Tier 2 (validated: code and test satellites)
needs green tests, and a red close sends BLOCKED_ON to the parent but stays
open; Tier 3 (orchestrated: domains and pilots) closes only when every
satellite below it is finished, and gathers their results.
"""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.errors import InvalidData, TierRefused
from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.records.model import BrainSnapshot, Claim, tier_of
from brain_tui.core.records.statuses import ResultStatus, Status

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.records.changes import ChangeSet
    from brain_tui.core.rules.claims import CloseRequest

def tests_given(req: CloseRequest) -> bool:
    """True when the close names any test count."""
    return any(v is not None for v in (req.tests_total, req.tests_passed, req.tests_failed))


def test_counts(req: CloseRequest) -> tuple[int, int, int]:
    """The close's test counts as (total, passed, failed), a count not given being 0.

    Raises:
        InvalidData: a negative count, or more passed and failed than in total (65).
    """
    total, passed, failed = req.tests_total or 0, req.tests_passed or 0, req.tests_failed or 0
    for name, count in (("total", total), ("passed", passed), ("failed", failed)):
        if count < 0:  # -1 passed of -1 would otherwise read as green (SPEC 6.5: passed == total > 0)
            raise InvalidData(f"invalid test count: {count} {name}: it is negative")
    if passed + failed > total:
        raise InvalidData(f"invalid test counts: {passed} passed + {failed} failed is more than {total} in total")
    return total, passed, failed


def unfinished_below(snapshot: BrainSnapshot, sess_id: str, *, besides: str | None = None) -> list[Claim]:
    """The satellites below `sess_id` that are not finished (what keeps a Tier 3 close refused).

    Args:
        besides: a satellite to leave out (the one about to finish: "can the parent close after this?").
    """
    return [c for c in snapshot.descendants(sess_id) if not c.is_terminal and c.sess_id != besides]


def close_result(cs: ChangeSet, claim: Claim, req: CloseRequest) -> dict[str, Any]:
    """The `result:` a close writes, once the claim's tier requirement is met.

    Raises:
        TierRefused: the requirement is not met (11); a red Tier 2 close still stages
            the BLOCKED_ON signal to the parent.
        InvalidData: test counts that do not add up (65).
    """
    result: dict[str, Any] = {}
    if tests_given(req):
        test_counts(req)  # counts that do not add up are bad data (65) in every tier, before the tier's own rule
    files = list(dict.fromkeys(req.files))
    snapshot = cs.snapshot
    sess_id = claim.sess_id
    tier = tier_of(claim)
    if tier == 1:
        if req.status is None:
            raise TierRefused(
                f"close refused: {sess_id} is Tier 1 (atomic) and needs a result: --status ok|partial|failed"
            )
        result["status"] = req.status
    elif tier == 2:
        if not tests_given(req):
            raise TierRefused(
                f"close refused: {sess_id} is Tier 2 (validated) and needs green tests: "
                "--tests-total N --tests-passed N --tests-failed 0"
            )
        total, passed, failed = test_counts(req)
        if total == 0:
            raise TierRefused(
                f"close refused: {sess_id} is Tier 2 (validated) and no test ran: "
                "--tests-total N --tests-passed N --tests-failed 0 with N > 0"
            )
        if not (failed == 0 and passed == total):
            message = f"tests red on close: {passed}/{total} passed, {failed} failed"
            if claim.parent and req.notify_parent:
                cs.add_signal(sess_id, claim.parent, "BLOCKED_ON", message, claim.scope_text)
            raise TierRefused(f"close refused: {sess_id} is Tier 2 (validated): {message}; the claim stays open")
        result["status"] = req.status or ResultStatus.OK.value
        result["tests"] = {"total": total, "passed": passed, "failed": failed}
    else:
        descendants = snapshot.descendants(sess_id)
        unfinished = unfinished_below(snapshot, sess_id)
        if unfinished:
            names = ", ".join(f"{c.sess_id} ({c.status})" for c in unfinished)
            raise TierRefused(
                f"close refused: {sess_id} is Tier 3 (orchestrated) and has unfinished satellites: {names}"
            )
        children: list[str] = []
        detail: list[dict[str, str]] = []
        any_short = False
        for child in snapshot.children(sess_id):
            written = child.result.status if child.result is not None else ""
            child_status = written or str(child.data.get("result_status") or child.status)
            if child.status in (Status.FAILED, Status.RELEASED) or \
                    child_status in (ResultStatus.FAILED, ResultStatus.PARTIAL):
                any_short = True
            children.append(child.sess_id)
            detail.append({"sess_id": child.sess_id, "status": child.status, "result": child_status})
        for child in descendants:
            if child.result is not None:
                files.extend(child.result.files_modified)
        files = list(dict.fromkeys(files))
        result["status"] = req.status or (ResultStatus.PARTIAL if any_short else ResultStatus.OK).value
        result["children"] = children  # the seeds' contract (BSI-v3-2): a list of session IDs
        result["children_detail"] = detail
    if tier != 2 and tests_given(req):  # SPEC 6.1: the counts given are the result's, whatever the tier
        total, passed, failed = test_counts(req)
        result["tests"] = {"total": total, "passed": passed, "failed": failed}
    if files:
        result["files_modified"] = files
    if tier in (2, 3) and "files_modified" not in result:  # the product fills it in (SPEC 6.5), empty or not
        result["files_modified"] = []
    if req.commit is not None:  # `--commit ""` is a hash given blank: refused, never taken for none
        result["commit"] = real_commit(cs.root, req.commit)
    if req.notes:
        result["notes"] = req.notes
    return result


#: A commit as `--commit` takes it: a hexadecimal hash, 4 to 40 digits (abbreviated or full).
_HASH_RE = LazyPattern(r"^[0-9a-fA-F]{4,40}\Z")


def real_commit(root: Path, text: str) -> str:
    """`text` when it is the hash of a commit that exists in the brain's repository (seed 002: "hash réel").

    Raises:
        InvalidData: not a hash, or no such commit (65, nothing closed).
    """
    commit = text.strip()
    if not _HASH_RE.match(commit):
        raise InvalidData(f"--commit {commit[:60]!r} is not a commit hash (4 to 40 hexadecimal digits)")
    from brain_tui.core.sync import gitops  # a close's check: the tier names a read shows need no git

    if not gitops.commit_exists(root, commit):
        raise InvalidData(f"--commit {commit}: no such commit in the brain's repository "
                          "(give the hash of a commit that exists: `git log --oneline`)")
    return commit
