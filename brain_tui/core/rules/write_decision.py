"""May this session write this file now? The one seat of the write decision (SPEC 10, 20.2, 21.3).

`decide_write` answers for an edit tool's files, a shell command's write targets
(`core.shell_targets`) and `bsi preflight check` alike, in this order:

1. a file outside every brain: allowed; a file in another brain (or another checkout
   of this one): decided there, as an unbound write (reached through a link of this
   brain: there, then here too);
2. a protocol file (`claims/ signals/ locks/ breath/ .brain/ BRAIN-INDEX.md`, the brain
   folder itself): refused ("change it through bsi");
3. a bound session: the preflight of SPEC 10 for each claim it holds (the first that
   passes lets the write go); a refusal names the claim holding the file, if another does.
   A shell command of a bound session whose claim is not effectively `open` is refused
   whatever it names. While brain-compose.yml does not read, a write the checks let go is
   refused too (65, the parse error named): they ran on the defaults, not on its zones;
4. an unbound session: refused inside a blocking claim (naming the holders), else as
   `hooks.unclaimed_writes` says (`BrainConfig.unclaimed_writes`: ``deny`` when
   brain-compose.yml does not read, the parse error named).

The brain is read once per decision: the blocking claims (the whole brain only when a
bound claim's parent chain leaves them). The hook's index (`core.hook_index`, the fast
path's conservative shadow) is rebuilt from that same read when it is missing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from brain_tui.core.errors import BsiError, InvalidData, PreflightRefused
from brain_tui.core.paths import path_keys
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.record import record, replace
from brain_tui.core.records import git_head
from brain_tui.core.records.model import BLOCKING_STATUSES, BrainSnapshot
from brain_tui.core.records.statuses import Status
from brain_tui.core.records.unreadable import repair_command
from brain_tui.core.rules.conflicts import CORRUPT, ask_holder, chain_complete, find_conflicts
from brain_tui.core.rules.effective import delegating_chain
from brain_tui.core.rules.preflight_codes import SCOPE_VIOLATION, WRONG_BRANCH, ZONE_VIOLATION
from brain_tui.core.rules.write_request import (
    CLAIMED,
    PROTOCOL,
    UNCLAIMED,
    ShellCommand,
    ToolWrite,
    TypedText,
    WriteDecision,
    WriteSession,
)
from brain_tui.core.sessions import hook_index

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.brain import Brain



_GO = WriteDecision(True)


def decide_write(brain: Brain, target: str | Sequence[str] | ShellCommand | TypedText | ToolWrite,
                 session: WriteSession) -> WriteDecision:
    """May `session` write `target` now: a path, the paths one tool call writes (all must pass), a `ToolWrite`
    (those paths with the tool's input), a `ShellCommand`'s targets, or `TypedText`; the first refusal, else an
    allowed decision (with the first note). An agent's write (the three last) of a file its claim holds by `##`
    sections only must leave the text outside them as it is (`section_writes`); a bare path (`bsi preflight check`)
    is judged by the file.
    """
    decider = _Decider(brain, session)
    decider.request = target if isinstance(target, (ShellCommand, TypedText, ToolWrite)) else None
    if isinstance(target, ToolWrite):
        return decider.paths(list(target.paths))
    if isinstance(target, TypedText):
        return decider.typed(target.chars)
    if isinstance(target, ShellCommand):
        return decider.shell(target)
    return decider.paths([target] if isinstance(target, str) else list(target))


def _short(text: object, limit: int) -> str:
    value = str(text)
    return value if len(value) <= limit else value[: limit - 1] + "…"


def holders_of(root: str | os.PathLike[str], snapshot: BrainSnapshot, sess_id: str, file: str,
               tree: bool = False) -> list[Any]:
    """The other blocking claims holding `file` (a path, or a section `plan.md#Beta`; with `tree` the folder and
    all below it): not `sess_id`'s own, nor the chain delegating to it, nor its descendants."""
    try:
        entries = parse_scope([file.rstrip("/") + "/" if tree else file], root, typed=False)
    except InvalidData:
        return []
    claim = snapshot.claim(sess_id)
    exempt = {sess_id, *(delegating_chain(snapshot, claim.parent) if claim else [])}
    exempt.update(c.sess_id for c in snapshot.descendants(sess_id))
    return [c for c in find_conflicts(snapshot, entries) if c.sess_id not in exempt]


def held_by(file: str, found: Sequence[Any], sess_id: str) -> str:
    """A refusal's words naming the claims `found` holding `file` (`holders_of`) and how `sess_id` asks the first."""
    names = "; ".join(_short(c.describe(), 200) for c in found[:3])
    return f"{file} is held: {names}: {ask_holder(found[0].sess_id, found[0].status, sess_id)}"


@record(frozen=False)
class _Place:
    """Where a path lands: `rel` in this brain, `other` brain, or neither (outside every brain)."""

    rel: str | None
    other: str | None = None
    other_rel: str | None = None


class _Decider:
    """One decision: the brain read at most once, the session's claims resolved once."""

    def __init__(self, brain: Brain, session: WriteSession, notes: bool = True, shadow: bool = True) -> None:
        self.brain = brain
        self.session = session
        self.notes = notes
        self.shadow = shadow
        self._snapshot: BrainSnapshot | None = None
        self._bound: list[str] = list(session.claims)
        self.request: ShellCommand | TypedText | ToolWrite | None = None  # an agent's write, not a bare path

    # -- reading ----------------------------------------------------------------------------------
    def snapshot(self) -> BrainSnapshot:
        """The blocking claims (the whole brain when a bound chain leaves them), read once; in an agent's process
        judged at the machine's clock when the brain's runs behind it (`authority.judged`)."""
        if self._snapshot is None:
            from brain_tui.core.rules.authority import judged

            read_at = time.time_ns()
            snapshot = self.brain.snapshot(only_statuses=BLOCKING_STATUSES)
            if self.shadow and hook_index.load(self.brain.root) is None:
                hook_index.write(self.brain.root, snapshot, self.brain.config, read_at)
            snapshot = judged(snapshot)
            if not self._bound and self.session.agent_session:
                session = self.session.agent_session
                self._bound = [c.sess_id for c in reversed(snapshot.claims) if c.agent_session == session]
            holders: set[str] = set()
            if snapshot.locks:  # the holders of unexpired locks the live read left out: an ended claim frees its lock
                from brain_tui.core.rules.locks import is_expired

                holders = {lock.holder for lock in snapshot.locks
                           if snapshot.claim(lock.holder) is None and not is_expired(lock, snapshot.now)}
            wanted = [*self._bound, *sorted(holders - set(self._bound))]
            if any(not chain_complete(snapshot, sess) for sess in wanted):
                # a closed claim or a terminal ancestor: read by name from the closed set, else the whole brain
                snapshot = judged(self.brain.store.with_chains(snapshot, wanted) or self.brain.snapshot())
            self._snapshot = snapshot
        return self._snapshot

    def bound(self) -> list[str]:
        """The claims the session holds (reading the brain when only the agent session is known)."""
        if not self._bound and self.session.agent_session:
            self.snapshot()
        return self._bound

    def place(self, path: str) -> _Place:
        """Where `path` lands (see `WriteSession.cwd`)."""
        root = str(self.brain.root)
        if self.session.cwd is None:
            return _Place(path)
        full = path if os.path.isabs(path) else os.path.join(self.session.cwd, path)
        rel = path_keys.brain_target(root, full)
        other = path_keys.brain_holding(full)
        if rel is not None:
            if other is None or path_keys.brain_target(root, other) is not None:
                return _Place(rel)  # this brain (a folder of it holding `claims/` is decided as this brain's)
            # a link of this brain into another one: that brain's protocol files and claims hold there too
            return _Place(rel, other, path_keys.brain_target(other, full))
        if other is None or other == os.path.realpath(root):
            return _Place(None)
        return _Place(None, other, path_keys.brain_target(other, full))

    # -- deciding ---------------------------------------------------------------------------------
    def paths(self, paths: list[str]) -> WriteDecision:
        """Every path must pass; the first refusal wins, else the first note rides along. A path naming a folder
        (`path_keys.names_folder`: `bsi preflight check ID eng/`, a file server's `create_directory`, or its
        `move_file` of an existing `eng`) is judged as that folder written whole, as the shell's `rm -r` is (its own
        holder's folder, no other's below, no file below another session locked)."""
        base = self.session.cwd or str(self.brain.root)
        return self._all([(path, path_keys.names_folder(path_keys.absolute(path, base))) for path in paths])

    def shell(self, shell: ShellCommand) -> WriteDecision:
        """A shell command: the session's claim must be able to act at all, then each target as a Write."""
        from brain_tui.core.sessions.shell_targets import read_command  # the shell's parser: shell calls only

        cwd = self.session.cwd or str(self.brain.root)
        readings = [read_command(shell.command, folder) for folder in (cwd, *shell.also_from)]
        reading = readings[0]
        for other in readings[1:]:  # what it writes run from any of its folders
            reading.targets += [t for t in other.targets if t not in reading.targets]
            reading.named += [t for t in other.named if t not in reading.named]
            reading.in_code += [t for t in other.in_code if t not in reading.in_code]
        unsure = ""
        if reading.partial:  # a target past what was read may be a protocol file or another claim's
            unsure = (f"this command line cannot be read whole ({reading.partial}), so what it writes is unknown: "
                      "run it as shorter commands, or write the long text with the edit tool")
        elif reading.terminal:
            unsure = (f"`{_short(reading.terminal, 40)}` would read its commands from the terminal, where text typed "
                      "later runs unchecked: give it its commands on the line (`bash -c '…'`, a script file), or run "
                      "them one by one")
        elif reading.elsewhere:
            unsure = (f"`{_short(reading.elsewhere, 40)}` runs or types commands in a process outside this agent's own "
                      "(a terminal server, a scheduler), where they would act as a human's: run them here, and leave "
                      "the pilot's terminals to the pilot")
        if unsure:
            return WriteDecision(False, unsure, code=InvalidData.exit_code, check="invalid",
                                 sess_id=self._bound[0] if self._bound else None)
        targets = [(target.path, target.tree) for target in reading.targets]
        # git's record of these changes (`git add`, `git rm --cached`…): a protocol file among them is refused;
        # the whole work tree (`git add .`) is an ordinary commit of one's work, and bsi commits its own files, but
        # a removal from it (`git rm -r --cached .`) takes the protocol records out of what git holds too
        named = [(target.path, target.tree, target.command) for target in reading.named
                 if target.tree or self.place(target.path).rel != ""]
        for path, tree, by in [*((path, tree, "") for path, tree in targets), *named]:  # before the brain is read
            place = _Place("") if tree and self._holds_the_brain(path) else self.place(path)
            refused = self._protocol(place)
            if refused is not None:
                return refused if not by else replace(refused, reason=(
                    f"`{_short(by, 40)}` changes what git holds for a protocol record: {refused.reason}"))
        bound = self.bound()
        if bound:
            refused = self._claim_cannot_act(bound)
            if refused is not None:
                return refused
            targets += self._held_by_sections(bound, reading.in_code)
        return self._all(targets)

    def _held_by_sections(self, bound: list[str], named: list[Any]) -> list[tuple[str, bool]]:
        """The paths an interpreter's code that writes names (`ShellReading.in_code`) that a claim of the session
        holds by `##` sections only: judged as written (`section_writes` refuses them)."""
        from brain_tui.core.rules.section_writes import held_by_sections

        found = []
        for target in named:
            rel = self.place(target.path).rel
            if rel and held_by_sections(self.snapshot(), bound, rel, self.brain.root):
                found.append((target.path, False))
        return found

    def typed(self, chars: str) -> WriteDecision:
        """Text typed into a running program: nothing for a claim that cannot act, and only whole shell lines
        (`shell_typing`), each decided as a shell command run from the session's cwd."""
        from brain_tui.core.sessions.shell_targets import read_command
        from brain_tui.core.sessions.shell_typing import typing_problem

        if not chars:
            return _GO
        bound = self.bound()
        refused = self._claim_cannot_act(bound) if bound else None
        if refused is not None:
            return refused
        problem = typing_problem(chars) or read_command(chars, self.session.cwd or str(self.brain.root)).partial
        if problem:
            return WriteDecision(
                False, f"the text typed into the running program cannot be read as whole shell lines ({problem}), "
                       "so what it writes is unknown: type whole lines, or run the command with the shell tool",
                code=InvalidData.exit_code, check="invalid", sess_id=bound[0] if bound else None)
        return self.shell(ShellCommand(chars))

    def _all(self, items: list[tuple[str, bool]]) -> WriteDecision:
        noted = _GO
        for path, tree in items:
            decision = self.one(path, tree)
            if not decision.allowed:
                return decision
            if decision.note and not noted.note or noted is _GO:
                noted = decision
        return noted

    def one(self, path: str, tree: bool = False) -> WriteDecision:
        """One file (`tree`: and everything below it, as `rm -r` or a copy into a folder writes)."""
        if "\x00" in path:
            return WriteDecision(False, "the path holds a NUL character", code=InvalidData.exit_code,
                                 check="invalid", file=_short(path.replace("\x00", "\\0"), 200))
        place = self.place(path)
        if tree and place.rel is None and self._holds_the_brain(path):
            place = _Place("")  # `rm -r` of a folder above the brain removes the brain's protocol files too
        refused = self._protocol(place) or self._program(path, tree)
        if refused is not None:
            return refused
        if place.other is not None and place.other_rel is not None:
            from brain_tui.core.brain import Brain

            there = Brain(place.other, clock=self.brain.clock, commit=False, sync="local")
            elsewhere = _Decider(there, WriteSession(cwd=self.session.cwd), notes=False, shadow=False)._unbound(
                place.other_rel, tree)
            if place.rel is None or not elsewhere.allowed:
                return elsewhere  # a path of this brain leading there is this brain's write too (below)
        if place.rel is None:
            return WriteDecision(True, file=path)
        if (rewound := git_head.rewound(self.brain.root)) is not None:  # HEAD at an old commit: not what is in force
            return WriteDecision(False, f"{_short(place.rel, 200)}: {rewound}; the claims in force are the branch's, "
                                 "so no brain file is written until it ends", code=WRONG_BRANCH, check="branch",
                                 file=place.rel)
        bound = self.bound()
        if bound:
            return self._bound_write(bound, place.rel, tree)
        return self._unbound(place.rel, tree)

    def _holds_the_brain(self, path: str) -> bool:
        """True when the folder `path` (a tool path) holds this brain's folder."""
        if self.session.cwd is None:
            return False
        full = os.path.realpath(path if os.path.isabs(path) else os.path.join(self.session.cwd, path))
        return os.path.realpath(self.brain.root).startswith(full.rstrip("/") + "/")

    def _protocol(self, place: _Place) -> WriteDecision | None:
        """The refusal of a protocol file (of this brain, or of the other one the path lands in), or None."""
        refused = self._protocol_of(place.rel, "")
        if refused is None and place.other is not None:
            refused = self._protocol_of(place.other_rel, f" of the brain at {_short(place.other, 200)}")
        return refused

    def _protocol_of(self, rel: str | None, where: str) -> WriteDecision | None:
        if rel is None:
            return None
        shown = rel
        if self.session.cwd is None:
            from brain_tui.core.rules.lock_names import lock_file_path

            try:
                shown = lock_file_path(rel)
            except InvalidData:
                return None  # the preflight refuses it as a scope violation
        if shown and not path_keys.is_protocol_path(shown):
            return None
        reason = (f"{_short(shown, 200)} is a protocol file{where}: change it through `bsi` (claim, signal, lock, "
                  "gate commands), never with an editor tool or the shell") if shown else (
            f"the brain's root folder{where} holds its protocol files (claims/, signals/, locks/, breath/, .brain/, "
            "BRAIN-INDEX.md), and a write of it whole (`rm -r .`, `find . -delete`) reaches them: name the folders "
            "of your claim instead (`find src …`); protocol files change through `bsi` only")
        shown = shown or "."
        return WriteDecision(
            False, reason,
            code=SCOPE_VIOLATION, check=PROTOCOL, sess_id=self._bound[0] if self._bound else None,
            file=shown)

    def _program(self, path: str, tree: bool) -> WriteDecision | None:
        """The refusal of a file naming programs run outside the sandbox (`program_files`), or None."""
        from brain_tui.core.rules.program_files import program_file_reason

        full = path_keys.absolute(path, self.session.cwd or str(self.brain.root))
        reason = program_file_reason(self.brain.root, full, tree, _short(path, 200))
        if reason is None:
            return None
        return WriteDecision(False, reason, code=SCOPE_VIOLATION, check=PROTOCOL,
                             sess_id=self._bound[0] if self._bound else None, file=_short(path, 200))

    def _claim_cannot_act(self, bound: list[str]) -> WriteDecision | None:
        """None when one of the session's claims may act now and a human holds none of them (paused, at a gate,
        under a paused or failed ancestor); else why not (a shell call is then refused: what it writes, the line
        may not show, so another open claim of the session would let it write the held claim's files)."""
        from brain_tui.core.rules import held as holds

        held, refused, acts = holds.refusals(self.snapshot(), bound)
        if not held and acts:
            return None
        sess_id, error = (held or refused)[0]
        return WriteDecision(
            False, f"{error.message}. While it is so, every shell command of this session is refused",
            code=error.exit_code, check=str(error.payload.get("check", "claim")), sess_id=sess_id,
            payload={k: v for k, v in error.payload.items() if k not in ("sess_id", "file", "code", "check")})

    def _bound_write(self, bound: list[str], rel: str, tree: bool) -> WriteDecision:
        from brain_tui.core.rules import held as holds
        from brain_tui.core.rules import preflight as rules  # the checks: a bound session's decision only
        from brain_tui.core.rules.lock_names import lock_file_path
        from brain_tui.core.rules.section_writes import section_refusal

        snapshot = self.snapshot()
        held = holds.holding(snapshot, holds.refusals(snapshot, bound)[0], rel.rstrip("/") + "/" if tree else rel,
                             str(self.brain.root))
        if held is not None:  # another claim of the session covers it, but the human stopped this session there
            return WriteDecision(False, held[1].message, code=held[1].exit_code, check="claim", sess_id=held[0],
                                 file=rel, payload={k: v for k, v in held[1].payload.items()
                                                    if k not in ("sess_id", "file", "code", "check")})
        config = self.brain.config
        refusals: list[tuple[str, BsiError]] = []
        for sess_id in bound:
            try:
                rules.check(snapshot, config, sess_id, rel, self._branch, tree=tree)
                if tree:
                    self._tree_free(snapshot, sess_id, rel)
                elif self.request is not None and (claim := snapshot.claim(sess_id)) is not None:
                    edit = self.request if isinstance(self.request, ToolWrite) else None
                    if (refused := section_refusal(self.brain.root, sess_id, claim.scope, rel, edit)) is not None:
                        raise refused
            except BsiError as exc:
                refusals.append((sess_id, exc))
                continue
            if config.problem:
                return self._unreadable_config(sess_id, rel)
            return WriteDecision(True, sess_id=sess_id, file=lock_file_path(rel))
        # the refusal told is that of a claim the brain holds: a binding left to a claim git never held (an
        # uncommitted open thrown away) would say "unknown" where another of its claims names the holder
        sess_id, error = next((r for r in refusals if snapshot.claim(r[0]) is not None), refusals[0])
        payload = {k: v for k, v in error.payload.items() if k not in ("sess_id", "file", "code", "check")}
        file = str(error.payload.get("file", rel))
        reason = error.message
        holders = tuple(payload.pop("holders", ()))
        if error.exit_code in (SCOPE_VIOLATION, ZONE_VIOLATION) and not holders:
            found = holders_of(self.brain.root, snapshot, sess_id, file)
            if found:
                holders = tuple(c.sess_id for c in found)
                reason += f". {held_by(file, found, sess_id)}"
        return WriteDecision(False, reason, code=error.exit_code, check=str(error.payload.get("check", "invalid")),
                             sess_id=sess_id, file=file, holders=holders, payload=payload)

    def _unreadable_config(self, sess_id: str, rel: str) -> WriteDecision:
        """The refusal of a write its claim's checks let go while brain-compose.yml does not read (SPEC 22: the
        hooks at their strictest): the checks ran on the defaults, not on the zones and breaker the file names."""
        return WriteDecision(
            False, f"{_short(rel, 200)}: brain-compose.yml does not read ({_short(self.brain.config.problem, 300)}), "
                   "so no file of the brain is written until a human fixes it (the kernel zone and breaker it names "
                   "cannot be checked)",
            code=InvalidData.exit_code, check="invalid", sess_id=sess_id, file=rel)

    def _tree_free(self, snapshot: BrainSnapshot, sess_id: str, rel: str) -> None:
        """A write of a whole folder (`rm -r`, a copy into it) meets no other claim below it.

        Raises:
            PreflightRefused: code 1, naming the holders.
        """
        found = holders_of(self.brain.root, snapshot, sess_id, rel, tree=True)
        if found:
            names = "; ".join(_short(c.describe(), 200) for c in found[:3])
            raise PreflightRefused(SCOPE_VIOLATION,
                                   f"scope violation: {rel}/ holds files of other claims: {names}",
                                   {"check": "scope", "holders": [c.sess_id for c in found]})

    def _branch(self) -> str:
        from brain_tui.core.sync import gitops

        return gitops.current_branch(self.brain.root)

    def _unbound(self, rel: str, tree: bool) -> WriteDecision:
        """A write by a session holding no claim: the blocking claims, then `hooks.unclaimed_writes`."""
        config = self.brain.config
        written = rel.rstrip("/") + "/" if tree else rel
        try:
            entries = parse_scope([written], self.brain.root, typed=False)  # a path written, not a scope typed
        except InvalidData as exc:
            return WriteDecision(False, f"{_short(rel, 200)} cannot be checked: {_short(exc.message, 200)}",
                                 code=InvalidData.exit_code, check="invalid", file=rel)
        linked = None if tree else path_keys.hard_linked(self.brain.root, rel)
        if linked is not None:
            return WriteDecision(False, f"{_short(rel, 200)}: {linked}", code=SCOPE_VIOLATION, check=CLAIMED,
                                 file=rel)
        conflicts = find_conflicts(self.snapshot(), entries)
        if conflicts:
            holders = "; ".join(f"{c.sess_id} ({c.status}) holds {_short(c.scope, 120)}"
                                + (f" (its file does not read: a human repairs it, `{repair_command(c.path)}`)"
                                   if c.status == CORRUPT else "") for c in conflicts[:3])
            more = f" and {len(conflicts) - 3} more" if len(conflicts) > 3 else ""
            first = conflicts[0]
            then = "; then" if first.status == Status.STALE else ", or wait for its close and"
            return WriteDecision(
                False, f"{_short(rel, 200)} is claimed: {holders}{more}. This session holds no claim. To coordinate: "
                       f"{ask_holder(first.sess_id, first.status)}{then} open a claim "
                       f"(`bsi claim open --scope {_short(written, 200)}`)",
                code=SCOPE_VIOLATION, check=CLAIMED, file=rel, holders=tuple(c.sess_id for c in conflicts))
        if config.unclaimed_writes == "deny":
            from brain_tui.core.config import unclaimed_written

            odd = None if config.problem else unclaimed_written(config)
            why = (f"brain-compose.yml does not read ({_short(config.problem, 300)}), so unclaimed writes are "
                   f"denied until it is fixed" if config.problem else
                   f"hooks.unclaimed_writes is {_short(odd, 60)!r}, none of allow, warn, deny, so the strictest "
                   f"holds until it is fixed" if odd is not None else
                   "the brain denies unclaimed writes (hooks.unclaimed_writes: deny)")
            return WriteDecision(
                False, f"{_short(rel, 200)}: this session holds no claim and {why}: "
                       f"`bsi claim open --scope {_short(written, 200)}` first",
                code=SCOPE_VIOLATION, check=UNCLAIMED, file=rel)
        if config.unclaimed_writes == "warn" and self.notes:
            return WriteDecision(True, note=hook_index.UNCLAIMED_NOTE.format(file=_short(rel, 200)), file=rel)
        return WriteDecision(True, file=rel)
