"""`bsi preflight check ID FILE` (SPEC 10): the write decision for a bare path, read to the letter of SPEC 5 for a
file held by `##` sections.

The answer is `Brain.decide_write`'s, the hook's own, with two readings of SPEC 10's check 1 ("the normalised file
is outside every scope entry") where a scope holds sections (SPEC 5.1, 5.2: two sections of one file are two
scopes):

* FILE written as a section of a markdown file (`plan.md#Beta`, `plan.md ## Beta`, `plan.md § Beta`; titles compare
  case-insensitively) is that section: inside a claim holding it, or holding its whole file, folder or the brain;
  outside a claim holding other sections of the file only (exit 1, naming the holder of that section). A name whose
  part before the marker is no markdown file (`notes/C#.md`) stays a file's name.
* FILE naming a whole file its claim holds by sections only is outside that scope (exit 1): the question names no
  text, so a "go" would let a script write the other sections; the refusal names the sections the claim may write
  and how (check the section, write inside it with an edit tool, whose text the hook checks, or claim the file).

The order of SPEC 10 holds: a claim that may not act (4) first, then these (1), then the zone, lock, breaker and
branch (5, 2, 3, 6).
"""

from __future__ import annotations

from brain_tui.core.errors import InvalidData, PreflightRefused
from brain_tui.core.paths.scope import SECTION, ScopeEntry, is_markdown, parse_entry
from brain_tui.core.rules.preflight import PreflightResult, refused_before
from brain_tui.core.rules.preflight_codes import CLAIM_NOT_OPEN, SCOPE_VIOLATION
from brain_tui.core.rules.write_decision import held_by, holders_of
from brain_tui.core.rules.write_request import PROTOCOL, WriteSession

TYPE_CHECKING = False
if TYPE_CHECKING:
    from brain_tui.core.brain import Brain
    from brain_tui.core.records.model import BrainSnapshot

__all__ = ["preflight", "section_target"]

_MARKERS = ("#", "\u00a7")


def section_target(file: str, root: str) -> ScopeEntry | None:
    """The `##` section `file` names when it is written as one of a markdown file (SPEC 5.1), else None (a path)."""
    if not any(marker in file for marker in _MARKERS):
        return None
    try:
        entry = parse_entry(file, root, typed=False)
    except InvalidData:
        return None
    return entry if entry.kind == SECTION and is_markdown(entry.path) else None


def _section_refusal(brain: Brain, snapshot: BrainSnapshot, sess_id: str, rel: str,
                     target: ScopeEntry | None) -> PreflightRefused | None:
    """Check 1 for a claim holding `rel` by sections only: the section asked must be one it holds, the whole file
    is outside its scope; None when the claim holds `rel` whole (or does not hold it: the write decision said so)."""
    claim = snapshot.claim(sess_id)
    if claim is None or not any(e.kind == SECTION for e in claim.scope):
        return None
    from brain_tui.core.rules.section_writes import held_sections, other_spelling  # a section holder's only

    held = held_sections(claim.scope, rel, brain.root)
    if held is None:
        return None
    own = sorted(str(e) for e in claim.scope if e.kind == SECTION and e.section_key in held)
    asked = f"{rel}#{target.section}" if target is not None else rel
    payload = {"sess_id": sess_id, "file": asked, "code": SCOPE_VIOLATION, "check": "scope",
               "scope": claim.scope_text, "sections": own}
    if target is None:
        return PreflightRefused(
            SCOPE_VIOLATION,
            f"scope violation: {rel}: {sess_id} holds the section {', '.join(own)} only, so the whole file is outside "
            f"its scope (this check names no text): ask for the section (`bsi preflight check {sess_id} "
            f"'{own[0]}'`) and change it with the Edit or Write tool, which the hook checks, or work under a claim on "
            "the whole file", payload)
    if target.section_key not in held:
        reason = (f"scope violation: {asked} is outside the scope of {sess_id} ({claim.scope_text}): it holds the "
                  f"section {', '.join(own)} only; signal BLOCKED_ON the pilot, or work under a claim whose scope "
                  "covers it")
        found = holders_of(brain.root, snapshot, sess_id, asked)
        if found:
            reason += f". {held_by(asked, found, sess_id)}"
            payload["holders"] = [c.sess_id for c in found]
        return PreflightRefused(SCOPE_VIOLATION, reason, payload)
    spelled = other_spelling(brain.root, rel)
    if spelled is not None:
        return PreflightRefused(
            SCOPE_VIOLATION, f"scope violation: {asked}: {sess_id} holds the section {', '.join(own)} only, and "
            f"{rel} is {spelled} spelled another way: on a case-insensitive disk they are one file, so write "
            f"{spelled}", payload)
    return None


def preflight(brain: Brain, sess_id: str, file: str) -> PreflightResult:
    """May `sess_id` write `file` (a path, or a `##` section of a markdown file) now? SPEC 10's answer.

    Raises:
        PreflightRefused: code 4, 1, 5, 2, 3 or 6 (the first failing check), with what unblocks it.
    """
    target = section_target(file, str(brain.root))
    decision = brain.decide_write(target.path if target is not None else file, WriteSession(claims=(sess_id,)))
    if not decision.allowed and decision.check == PROTOCOL:  # a file no agent writes: SPEC 10's 4, 1, 5 first
        raise refused_before(brain.snapshot(), brain.config, sess_id, file) or decision.refusal()
    if not decision.allowed and decision.code in (CLAIM_NOT_OPEN, SCOPE_VIOLATION):
        raise decision.refusal()
    rel = decision.file or (target.path if target is not None else file)
    refused = _section_refusal(brain, brain.snapshot(), sess_id, rel, target)
    if refused is not None:
        raise refused
    if not decision.allowed:
        raise decision.refusal()
    return PreflightResult(sess_id, f"{rel}#{target.section}" if target is not None else rel)
