"""What each hook event does (SPEC 20.2), on the core facade.

Every handler gets a `HookContext` and returns an `Answer` (exit code 0 or 2,
stdout, stderr). Nothing here prints, exits or reads stdin: `hooks.main` does.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from brain_tui.core import agents
from brain_tui.hooks import wire
from brain_tui.hooks.text import fact

if TYPE_CHECKING:
    from brain_tui.core.brain import Brain
    from brain_tui.core.model import BrainSnapshot, Claim

#: `hooks.unclaimed_writes` in brain-compose.yml.
UNCLAIMED_MODES = ("allow", "warn", "deny")


@dataclass
class Answer:
    """What the hook answers: exit code (0 or 2 only), stdout, stderr."""

    code: int = 0
    out: str = ""
    err: str = ""


@dataclass
class HookContext:
    """One hook run: the event, the agent, the brain and the environment.

    Attributes:
        event_name: the kebab-case event (`pre-tool-use`, …).
        event: the decoded stdin object.
        agent: `claude`, `codex` or `gemini`.
        root: the brain folder, or None when none was found.
        now: `--now` (else `$BRAIN_NOW`, else the system clock).
        environ: the process environment.
    """

    event_name: str
    event: dict[str, Any]
    agent: str
    root: str | None
    now: str | None
    environ: dict[str, str]
    _brain: Brain | None = field(default=None, repr=False)

    @property
    def brain(self) -> Brain:
        """The facade, opened once, never committing and never syncing from a hook."""
        if self._brain is None:
            from brain_tui.core.brain import Brain

            assert self.root is not None
            self._brain = Brain(self.root, now=self.now, commit=False, sync="local")
        return self._brain

    @property
    def agent_session(self) -> str | None:
        """The agent's session ID: the event's `session_id` (Claude Code, Gemini CLI, Codex), else the agent's
        variable (`$CLAUDE_CODE_SESSION_ID`, `$GEMINI_SESSION_ID`)."""
        from brain_tui.core.agent_files import env_agent_session

        value = wire.text_field(self.event, "session_id") or env_agent_session(self.environ)
        return value if agents.valid_agent_session(value) else None

    @property
    def cwd(self) -> str:
        """The event's working folder (else ours)."""
        return wire.text_field(self.event, "cwd") or os.getcwd()


# ---------------------------------------------------------------------------------------------
# Binding (SPEC 20.1)
# ---------------------------------------------------------------------------------------------
def launcher_claim(environ: dict[str, str]) -> str | None:
    """`$BSI_SESSION`, when set to a session ID (it wins over any binding)."""
    from brain_tui.core.ids import valid_session_id

    value = environ.get(agents.BSI_SESSION_ENV, "").strip()
    return value if value and valid_session_id(value) else None


def bound_claims(ctx: HookContext, snapshot: BrainSnapshot | None = None) -> list[str]:
    """The claims this agent session holds, newest first: `$BSI_SESSION`, else its binding.

    The binding is read from the local records (`core.handover.session_claims`:
    a claim its client opened through `bsi mcp` is bound first), else from the
    `agent_session:` of the blocking claims in `snapshot` (a claim opened on
    another path, or the records lost).
    """
    launched = launcher_claim(ctx.environ)
    if launched:
        return [launched]
    session = ctx.agent_session
    if session is None or ctx.root is None:
        return []
    from brain_tui.core.handover import session_claims

    found = list(reversed(session_claims(ctx.root, session, lambda: _now(ctx))))
    if not found and snapshot is not None:
        found = [c.sess_id for c in reversed(snapshot.claims) if c.agent_session == session]
    return found


def agent_process() -> str:
    """``PID:START`` of the agent process running this hook (`core.agent_process`), or ""."""
    from brain_tui.core.agent_process import agent_process as resolve

    return resolve()


# ---------------------------------------------------------------------------------------------
# pre-tool-use
# ---------------------------------------------------------------------------------------------
def relative_to_brain(root: str, path: str, cwd: str) -> str | None:
    """The brain-relative POSIX path of a tool's target (symlinks and `..` resolved), or None if outside.

    The brain's folder compares by `path_keys.path_key` (`path_keys.brain_target`): on macOS
    ``/Users/me/BRAIN/x.md`` is inside the brain ``/Users/me/brain``; a path written below the
    brain through a link to a folder elsewhere is that brain path (a claim may hold it).
    """
    from brain_tui.core.path_keys import brain_target

    return brain_target(root, wire.absolute(path, cwd))


def is_protocol_file(rel: str) -> bool:
    """True for the brain's protocol files in any spelling (`path_keys.is_protocol_path`: `CLAIMS/x.yml` is one)."""
    from brain_tui.core.path_keys import is_protocol_path

    return is_protocol_path(rel)


def unclaimed_mode(brain: Brain) -> str:
    """`hooks.unclaimed_writes` in brain-compose.yml (`warn` when absent or unreadable)."""
    raw = brain.config.raw.get("hooks") if hasattr(brain.config.raw, "get") else None
    mode = raw.get("unclaimed_writes") if isinstance(raw, dict) else None
    return mode if mode in UNCLAIMED_MODES else "warn"


def pre_tool_use(ctx: HookContext) -> Answer:
    """Decide one write (SPEC 20.2 table, first row). Exit 2 with the deny shape, else exit 0 with nothing."""
    paths = wire.target_files(ctx.event, ctx.agent)
    if paths is None:
        return Answer()
    if not paths:
        raise wire.BadInput(f"{wire.text_field(ctx.event, 'tool_name') or 'the tool'} names no file "
                            "(tool_input.file_path or notebook_path)")
    if ctx.root is None:
        return Answer()
    noted = Answer()
    for path in paths:  # every file is checked: a note on one never lets the next through unchecked
        answer = _check_one(ctx, path)
        if answer.code != 0:
            return answer
        if answer.out and not noted.out:
            noted = answer
    return noted


def _check_one(ctx: HookContext, path: str) -> Answer:
    assert ctx.root is not None
    if "\x00" in path:
        raise wire.BadInput("the tool's file path holds a NUL character")
    rel = relative_to_brain(ctx.root, path, ctx.cwd)
    if rel is None:
        return _check_other_brain(ctx, path)
    if rel == "" or is_protocol_file(rel):
        return refuse(ctx, f"{fact(rel or '.', 200)} is a protocol file of the brain: change it through `bsi` "
                           "(claim, signal, lock, gate commands), never with an editor tool")
    from brain_tui.core import hook_index
    from brain_tui.core.model import BLOCKING_STATUSES

    brain = ctx.brain
    read_at = time.time_ns()
    snapshot = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    if hook_index.load(ctx.root) is None:  # the next write asks the index first (`hooks.fast`)
        hook_index.write(ctx.root, snapshot, brain.config, read_at)
    bound = bound_claims(ctx, snapshot)
    if bound:
        return _check_bound(ctx, bound, rel)
    return _check_unbound(ctx, snapshot, rel)


def _check_other_brain(ctx: HookContext, path: str) -> Answer:
    """A file outside the session's brain but inside another one (or another checkout of it).

    That brain's protocol files are refused as the session's own would be, and a
    file there meets that brain's blocking claims (and its `hooks.unclaimed_writes:
    deny`) as an unbound write: the session holds no claim in that brain. It gets
    no `warn` note there (that brain is not the session's). A file in no brain at
    all is allowed (SPEC 20.2).
    """
    from brain_tui.core.path_keys import brain_holding

    other = brain_holding(wire.absolute(path, ctx.cwd))
    if other is None or ctx.root is None or other == os.path.realpath(ctx.root):
        return Answer()
    there = HookContext(ctx.event_name, ctx.event, ctx.agent, other, ctx.now, ctx.environ)
    rel = relative_to_brain(other, path, ctx.cwd)
    if rel is None:
        return Answer()
    if rel == "" or is_protocol_file(rel):
        return refuse(ctx, f"{fact(rel or '.', 200)} is a protocol file of the brain at {fact(other, 200)}: "
                           "change it through `bsi` there, never with an editor tool")
    from brain_tui.core.model import BLOCKING_STATUSES

    return _check_unbound(there, there.brain.snapshot(only_statuses=BLOCKING_STATUSES), rel, notes=False)


def _check_bound(ctx: HookContext, bound: list[str], rel: str) -> Answer:
    """The full preflight (SPEC 10) for the session's claim; allowed when one of its claims passes."""
    from brain_tui.core.errors import BsiError

    reasons: list[str] = []
    for sess_id in bound:
        try:
            preflight(ctx.brain, sess_id, rel)
        except BsiError as exc:
            reasons.append(fact(exc.message, 400))
            continue
        return Answer()
    return refuse(ctx, f"preflight refused for {bound[0]}: {reasons[0]}")


def preflight(brain: Brain, sess_id: str, rel: str) -> None:
    """The core's preflight of one write, plus the claim's effective status (an expired open claim is stale).

    Raises:
        BsiError: the refusal, with the message saying what unblocks it.
    """
    from brain_tui.core import preflight as rules
    from brain_tui.core.conflicts import chain_complete
    from brain_tui.core.errors import PreflightRefused
    from brain_tui.core.model import BLOCKING_STATUSES
    from brain_tui.core.watchdog import expired

    snapshot = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    if not chain_complete(snapshot, sess_id):  # a closed claim, or a terminal ancestor: read the whole brain
        snapshot = brain.snapshot()
    rules.check(snapshot, brain.config, sess_id, rel, lambda: _branch(brain))
    claim = snapshot.claim(sess_id)
    if claim is not None and expired(claim, snapshot):
        raise PreflightRefused(4, f"claim {sess_id} expired (stale, TTL over): renew it with "
                                  f"`bsi claim renew {sess_id}` while it is open, or open a new claim")


def _branch(brain: Brain) -> str:
    from brain_tui.core import gitops

    return gitops.current_branch(brain.root)


def _check_unbound(ctx: HookContext, snapshot: BrainSnapshot, rel: str, notes: bool = True) -> Answer:
    from brain_tui.core.conflicts import find_conflicts
    from brain_tui.core.errors import InvalidData
    from brain_tui.core.scope import parse_scope

    try:
        entries = parse_scope([rel], ctx.brain.root)
    except InvalidData as exc:
        return refuse(ctx, f"{fact(rel, 200)} cannot be checked: {fact(exc.message, 200)}")
    conflicts = find_conflicts(snapshot, entries)
    if conflicts:
        holders = "; ".join(f"{c.sess_id} ({c.status}) holds {fact(c.scope, 120)}" for c in conflicts[:3])
        more = f" and {len(conflicts) - 3} more" if len(conflicts) > 3 else ""
        first = conflicts[0].sess_id
        return refuse(ctx, f"{fact(rel, 200)} is claimed: {holders}{more}. This session holds no claim. "
                           f"To coordinate: `bsi signal send --to {first} --type BLOCKED_ON …`, or wait for its "
                           f"close and open a claim (`bsi claim open --scope {fact(rel, 200)}`)")
    mode = unclaimed_mode(ctx.brain)
    if mode == "deny":
        return refuse(ctx, f"{fact(rel, 200)}: this session holds no claim and the brain denies unclaimed "
                           f"writes (hooks.unclaimed_writes: deny): `bsi claim open --scope {fact(rel, 200)}` first")
    if mode == "warn" and notes:
        text = (f"bsi: note: {fact(rel, 200)} written without a claim (no claim holds it; "
                f"`bsi claim open --scope …` makes the work visible to other sessions)")
        return Answer(0, wire.dumps(wire.note(text)), text + "\n")
    return Answer()


def refuse(ctx: HookContext, reason: str) -> Answer:
    """A denial: exit 2, the reason on stderr and the deny shape on stdout; a note under `BSI_HOOKS=warn`."""
    reason = reason[:2000]
    if ctx.environ.get("BSI_HOOKS", "").strip().lower() == "warn":
        text = f"bsi: note (BSI_HOOKS=warn, not enforced): would deny: {reason}"
        return Answer(0, wire.dumps(wire.note(text)), text + "\n")
    return Answer(2, wire.dumps(wire.deny(reason, ctx.agent)), f"bsi: {reason}\n")


# ---------------------------------------------------------------------------------------------
# post-tool-use, notification, session-end, stop
# ---------------------------------------------------------------------------------------------
def _now(ctx: HookContext) -> Any:
    return ctx.brain.now()


def post_tool_use(ctx: HookContext) -> Answer:
    """Record the touched file and the last activity for the bound claim (local, no commit)."""
    if ctx.root is None:
        return Answer()
    bound = bound_claims(ctx)
    if not bound:
        return Answer()
    touched: list[str] = []
    for path in wire.target_files(ctx.event, ctx.agent) or []:
        rel = relative_to_brain(ctx.root, path, ctx.cwd)
        if rel and not is_protocol_file(rel):
            touched.append(rel)
    if not genuine_event(ctx):
        return Answer(0, "", not_genuine_note(ctx))
    tool = wire.text_field(ctx.event, "tool_name") or None
    agents.record_activity(ctx.root, bound[0], ctx.agent_session, _now(ctx), tool=tool, touched=touched)
    return Answer()


def genuine_event(ctx: HookContext) -> bool:
    """The event comes from its session's own agent process (a launcher's `$BSI_SESSION` speaks for itself)."""
    from brain_tui.core.handover import genuine

    return ctx.root is None or launcher_claim(ctx.environ) is not None or genuine(ctx.root, ctx.agent_session)


def not_genuine_note(ctx: HookContext) -> str:
    return (f"bsi hook {ctx.event_name}: ignored: agent session {ctx.agent_session} belongs to another agent "
            "process (an event from this process cannot speak for it)\n")


def notification(ctx: HookContext) -> Answer:
    """The agent waits for its user: `needs_input` for the cockpit."""
    if ctx.root is None:
        return Answer()
    bound = bound_claims(ctx)
    if bound and not genuine_event(ctx):
        return Answer(0, "", not_genuine_note(ctx))
    for sess_id in bound[:1]:
        agents.record_state(ctx.root, sess_id, ctx.agent_session, "needs_input", _now(ctx))
    return Answer()


def session_end(ctx: HookContext) -> Answer:
    """`ended` for the cockpit; on `/clear` the binding is left for the next session of the same agent process
    (`core.handover.end_session`: a hand-over from any other process is refused, and said on stderr)."""
    if ctx.root is None:
        return Answer()
    bound = bound_claims(ctx)
    if not bound:
        return Answer()
    from brain_tui.core.handover import end_session

    launched = launcher_claim(ctx.environ) is not None
    note = end_session(ctx.root, None if launched else ctx.agent_session, list(reversed(bound)),
                       wire.text_field(ctx.event, "reason"), _now(ctx), cwd=ctx.cwd, handover=not launched)
    return Answer(0, "", f"bsi: {fact(note, 600)}\n" if note else "")


def stop(ctx: HookContext) -> Answer:
    """Block the first stop while the bound claim is `open`, with the exact close command for its tier."""
    if ctx.root is None or ctx.event.get("stop_hook_active") is True:
        return Answer()
    bound = bound_claims(ctx)
    if not bound:
        return Answer()
    brain = ctx.brain
    snapshot = brain.snapshot()
    claim = snapshot.claim(bound[0])
    if genuine_event(ctx):
        agents.record_state(ctx.root, bound[0], ctx.agent_session, "idle", brain.now())
    if claim is None or claim.status != "open":
        return Answer()
    if not agents.first_time(ctx.root, claim.sess_id, f"stop:{ctx.agent_session or '-'}"):
        return Answer()
    reason = (f"Claim {claim.sess_id} is still open. Before stopping, close it: `{close_command(claim, snapshot)}`"
              f", or ask a human: `bsi gate request {claim.sess_id} \"what to decide\"`.")
    return Answer(0, wire.dumps(wire.block_stop(reason)))


def close_command(claim: Claim, snapshot: BrainSnapshot) -> str:
    """The `bsi claim close` command line this claim's tier requires (SPEC 6.5)."""
    from brain_tui.core.tiers import tier_of

    tier = tier_of(claim)
    if tier == 1:
        return f"bsi claim close {claim.sess_id} --status ok|partial|failed --files F…"
    if tier == 2:
        return f"bsi claim close {claim.sess_id} --tests-total N --tests-passed N --tests-failed 0 --files F…"
    return f"bsi claim close {claim.sess_id} --status ok (once every child claim is closed)"


def handlers() -> dict[str, Any]:
    """The handler of each event."""
    from brain_tui.hooks import context

    return {
        "pre-tool-use": pre_tool_use,
        "post-tool-use": post_tool_use,
        "session-start": context.session_start,
        "session-end": session_end,
        "user-prompt-submit": context.user_prompt_submit,
        "stop": stop,
        "notification": notification,
    }
