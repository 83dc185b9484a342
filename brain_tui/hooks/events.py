"""What each hook event does (SPEC 20.2), on the core facade.

Every handler gets a `HookContext` and returns an `Answer` (exit code 0 or 2,
stdout, stderr). Nothing here prints, exits or reads stdin: `hooks.main` does.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from brain_tui.core.paths.text_safety import inert_line as fact
from brain_tui.core.record import field, record
from brain_tui.core.records.statuses import Status
from brain_tui.core.sessions.agent_files import renamed_to, valid_agent_session
from brain_tui.hooks import wire

if TYPE_CHECKING:
    from collections.abc import Callable

    from brain_tui.core.brain import Brain
    from brain_tui.core.records.model import BrainSnapshot, Claim
    from brain_tui.core.sessions.agents import Transcript

@record(frozen=False)
class Answer:
    """What the hook answers: exit code (0 or 2 only), stdout, stderr."""

    code: int = 0
    out: str = ""
    err: str = ""


@record(frozen=False)
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
        from brain_tui.core.sessions.agent_files import env_agent_session

        value = wire.text_field(self.event, "session_id") or env_agent_session(self.environ)
        return value if valid_agent_session(value) else None

    @property
    def cwd(self) -> str:
        """The event's working folder (else ours)."""
        return wire.text_field(self.event, "cwd") or os.getcwd()


# ---------------------------------------------------------------------------------------------
# Binding (SPEC 20.1)
# ---------------------------------------------------------------------------------------------
def launcher_claim(environ: dict[str, str], root: str | None = None) -> str | None:
    """`$BSI_SESSION`, when set to a session ID that the agent process itself carries (it wins over any binding),
    for the brain at `root` when given.

    The rule is the core's (`agent_tree.launcher_claim`): a hook its agent's shell ran by hand with
    another claim's ID speaks for nothing, nor does one launched for another brain.
    """
    from brain_tui.core.ids import valid_session_id
    from brain_tui.core.rules.agent_tree import launcher_claim as launched_by

    value = launched_by(environ, root)
    return value if value and valid_session_id(value) else None


def bound_claims(ctx: HookContext, snapshot: BrainSnapshot | None = None) -> list[str]:
    """The claims this agent session holds, newest first: `$BSI_SESSION`, else its binding.

    The binding is read from the local records (`core.handover.session_claims`:
    a claim its client opened through `bsi mcp` is bound first), else from the
    `agent_session:` of the blocking claims in `snapshot` (a claim opened on
    another path, or the records lost).
    """
    launched = launcher_claim(ctx.environ, ctx.root)
    if launched:
        return [launched if ctx.root is None else renamed_to(ctx.root, launched)]  # a claim sync renamed: its new ID
    session = ctx.agent_session
    if session is None or ctx.root is None:
        return []
    from brain_tui.core.sessions.handover import session_claims

    found = list(reversed(session_claims(ctx.root, session, lambda: _now(ctx))))
    if not found and snapshot is not None:
        found = [c.sess_id for c in reversed(snapshot.claims) if c.agent_session == session]
    return found


def agent_process() -> str:
    """The ID of the agent process running this hook (`core.agent_process`), or ""."""
    from brain_tui.core.sessions.agent_process import agent_process as resolve

    return resolve()


# ---------------------------------------------------------------------------------------------
# pre-tool-use: the core decides (`Brain.decide_write`); this only reads the wire and answers on it
# ---------------------------------------------------------------------------------------------
def relative_to_brain(root: str, path: str, cwd: str) -> str | None:
    """The brain-relative POSIX path of a tool's target (symlinks and `..` resolved), or None if outside; None for
    a path with a NUL too: it names no file (the tool wrote none)."""
    from brain_tui.core.paths.path_keys import absolute, brain_target

    if "\x00" in path:
        return None
    return brain_target(root, absolute(path, cwd))


def is_protocol_file(rel: str) -> bool:
    """True for the brain's protocol files in any spelling (`path_keys.is_protocol_path`: `CLAIMS/x.yml` is one)."""
    from brain_tui.core.paths.path_keys import is_protocol_path

    return is_protocol_path(rel)


def pre_tool_use(ctx: HookContext) -> Answer:
    """One edit tool's files or one shell command, decided by `Brain.decide_write`; the answer on the wire.

    Exit 2 with the deny shape, else exit 0 (with a note, or nothing).
    """
    from brain_tui.core.rules.write_request import ShellCommand, ToolWrite, TypedText, WriteSession

    if not wire.names_tool(ctx.event):  # every client names its tool: an event that does not is bad input
        raise wire.BadInput("the event names no tool (tool_name)")
    typed = wire.typed_text(ctx.event)
    if typed is not None:
        if ctx.root is None:
            return Answer()
        return _decided(ctx, TypedText(typed), WriteSession(claims=tuple(bound_claims(ctx)),
                                                            agent_session=ctx.agent_session, cwd=ctx.cwd))
    shell = wire.shell_command(ctx.event)
    paths = wire.target_files(ctx.event) if shell is None else None
    if shell is None and paths is None:
        return Answer()
    if shell == "":
        raise wire.BadInput(f"{fact(wire.text_field(ctx.event, 'tool_name'), 60)} names no command "
                            "(tool_input.command)")
    if shell is None and not paths:
        where = "a path argument" if wire.mcp_write_tool(wire.text_field(ctx.event, "tool_name")) else \
            "tool_input.file_path or notebook_path"
        raise wire.BadInput(f"{fact(wire.text_field(ctx.event, 'tool_name'), 60) or 'the tool'} names no file "
                            f"({where})")
    if ctx.root is None:
        return Answer()
    if paths and any("\x00" in path for path in paths):
        raise wire.BadInput("the tool's file path holds a NUL character")
    session = WriteSession(claims=tuple(bound_claims(ctx)), agent_session=ctx.agent_session,
                           cwd=wire.shell_cwd(ctx.event, ctx.cwd) if shell is not None else ctx.cwd)
    tool = wire.text_field(ctx.event, "tool_name")
    # another MCP server runs a command in its own folder (unknown), unless the call names one: from every folder above
    elsewhere = wire.server_folders(session.cwd or ctx.cwd) \
        if shell is not None and wire.mcp_command_tool(tool) and session.cwd == ctx.cwd else ()
    tool_input = ctx.event.get("tool_input")
    target = ShellCommand(shell, also_from=elsewhere) if shell is not None else \
        ToolWrite(tuple(paths or ()), tool, tool_input if isinstance(tool_input, dict) else {})
    return _decided(ctx, target, session)


def _decided(ctx: HookContext, target: Any, session: Any) -> Answer:
    """`Brain.decide_write`'s answer on the wire."""
    decision = ctx.brain.decide_write(target, session)
    if not decision.allowed:
        return refuse(ctx, fact(decision.reason, 2000))
    if decision.note:
        text = f"bsi: note: {fact(decision.note, 400)}"
        return Answer(0, wire.dumps(wire.note(text)), text + "\n")
    return Answer()


def refuse(ctx: HookContext, reason: str) -> Answer:
    """A denial: exit 2 (Gemini: 0, `wire.deny_exit`), the reason on stderr and the deny shape on stdout;
    a note under `BSI_HOOKS=warn`."""
    reason = reason[:2000]
    if ctx.environ.get("BSI_HOOKS", "").strip().lower() == "warn":
        text = f"bsi: note (BSI_HOOKS=warn, not enforced): would deny: {reason}"
        return Answer(0, wire.dumps(wire.note(text)), text + "\n")
    return Answer(wire.deny_exit(ctx.agent), wire.dumps(wire.deny(reason, ctx.agent)), f"bsi: {reason}\n")


# ---------------------------------------------------------------------------------------------
# post-tool-use, notification, session-end, stop
# ---------------------------------------------------------------------------------------------
def _now(ctx: HookContext) -> Any:
    return ctx.brain.now()


def post_tool_use(ctx: HookContext) -> Answer:
    """Record the touched file and the last activity for the bound claim (local, no commit)."""
    from brain_tui.core.sessions import agents

    if ctx.root is None:
        return Answer()
    bound = bound_claims(ctx)
    if not bound:
        return Answer()
    touched: list[str] = []
    for path in wire.target_files(ctx.event) or []:
        rel = relative_to_brain(ctx.root, path, ctx.cwd)
        if rel and not is_protocol_file(rel):
            touched.append(rel)
    if not genuine_event(ctx):
        return Answer(0, "", not_genuine_note(ctx))
    tool = wire.text_field(ctx.event, "tool_name") or None
    agents.record_activity(ctx.root, bound[0], ctx.agent_session, _now(ctx), tool=tool, touched=touched,
                           transcript=transcript(ctx))
    return Answer()


def transcript(ctx: HookContext) -> Transcript | None:
    """The event's `transcript_path` when it names a regular file (`agents.transcript_of`), else None."""
    from brain_tui.core.sessions import agents

    return agents.transcript_of(ctx.event.get("transcript_path"), ctx.agent)


def genuine_event(ctx: HookContext) -> bool:
    """The event comes from its session's own agent process (a launcher's `$BSI_SESSION` speaks for itself)."""
    from brain_tui.core.sessions.handover import genuine

    return ctx.root is None or launcher_claim(ctx.environ) is not None or genuine(ctx.root, ctx.agent_session)


def not_genuine_note(ctx: HookContext) -> str:
    return (f"bsi hook {ctx.event_name}: ignored: agent session {ctx.agent_session} belongs to another agent "
            "process (an event from this process cannot speak for it)\n")


#: Notification types that mean the agent waits on its user (a permission prompt, a question); Gemini CLI
#: says `ToolPermission`. An event without a type (older clients) counts as one too.
WAITING_KINDS = frozenset({"permission_prompt", "elicitation_dialog", "ToolPermission"})
#: Claude Code's "waiting for your next prompt" (the turn is over): idle, not a question.
IDLE_KINDS = frozenset({"idle_prompt"})


def notification(ctx: HookContext) -> Answer:
    """The agent waits for its user: `needs_input` for the cockpit, with the notification's kind and message.

    `idle_prompt` (the turn is done, the client waits for a next prompt) records `idle`; a notification of
    another kind (`auth_success`, `elicitation_complete`…) only remembers the transcript.
    """
    from brain_tui.core.sessions import agents

    if ctx.root is None:
        return Answer()
    bound = bound_claims(ctx)
    if bound and not genuine_event(ctx):
        return Answer(0, "", not_genuine_note(ctx))
    kind = wire.text_field(ctx.event, "notification_type")
    message = wire.text_field(ctx.event, "message")
    for sess_id in bound[:1]:
        if not kind or kind in WAITING_KINDS:
            agents.record_state(ctx.root, sess_id, ctx.agent_session, "needs_input", _now(ctx),
                                transcript=transcript(ctx), kind=kind or None, message=message or None)
        elif kind in IDLE_KINDS:
            agents.record_state(ctx.root, sess_id, ctx.agent_session, "idle", _now(ctx), transcript=transcript(ctx))
    return Answer()


def permission_request(ctx: HookContext) -> Answer:
    """Claude Code shows a permission dialog (`PermissionRequest`): `needs_input`, naming the tool and its
    target. Nothing is decided here: the hook answers nothing, so the client asks its user as usual."""
    from brain_tui.core.sessions import agents

    if ctx.root is None:
        return Answer()
    bound = bound_claims(ctx)
    if bound and not genuine_event(ctx):
        return Answer(0, "", not_genuine_note(ctx))
    from brain_tui.core.sessions.transcript import target_of

    tool = wire.text_field(ctx.event, "tool_name")
    target = target_of(ctx.event.get("tool_input"))
    message = f"{tool} {target}".strip() if tool else ""
    for sess_id in bound[:1]:
        agents.record_state(ctx.root, sess_id, ctx.agent_session, "needs_input", _now(ctx),
                            transcript=transcript(ctx), kind="permission_request", message=message or None)
    return Answer()


def session_end(ctx: HookContext) -> Answer:
    """`ended` for the cockpit; on `/clear` the binding is left for the next session of the same agent process
    (`core.handover.end_session`: a hand-over from any other process is refused, and said on stderr)."""
    from brain_tui.core.sessions import agents

    if ctx.root is None:
        return Answer()
    bound = bound_claims(ctx)
    if not bound:
        return Answer()
    from brain_tui.core.sessions.handover import end_session

    launched = launcher_claim(ctx.environ) is not None
    if genuine_event(ctx):
        agents.note_event(ctx.root, bound[0], ctx.agent_session, _now(ctx), transcript(ctx))
    note = end_session(ctx.root, None if launched else ctx.agent_session, list(reversed(bound)),
                       wire.text_field(ctx.event, "reason"), _now(ctx), cwd=ctx.cwd, handover=not launched)
    return Answer(0, "", f"bsi: {fact(note, 600)}\n" if note else "")


def stop(ctx: HookContext) -> Answer:
    """Block the first stop while the bound claim is `open` (as the write rules read it: not past its TTL), with the
    exact close command for its tier."""
    from brain_tui.core.sessions import agents

    if ctx.root is None or ctx.event.get("stop_hook_active") is True:
        return Answer()
    bound = bound_claims(ctx)
    if not bound:
        return Answer()
    if not genuine_event(ctx):  # another process's stop never uses up the session's one reminder
        return Answer(0, "", not_genuine_note(ctx))
    from brain_tui.core.rules.authority import judged
    from brain_tui.core.rules.effective import effective_status

    brain = ctx.brain
    snapshot = judged(brain.snapshot())  # a clock behind tells no expired claim it is open
    claim = snapshot.claim(bound[0])
    agents.record_state(ctx.root, bound[0], ctx.agent_session, "idle", brain.now(), transcript=transcript(ctx))
    # a claim past its TTL is stale, marked or not (SPEC 6.3): no gate can be asked for it, nothing to remind of
    if claim is None or effective_status(claim, snapshot.now) != Status.OPEN:
        return Answer()
    if not agents.first_time(ctx.root, claim.sess_id, f"stop:{ctx.agent_session or '-'}"):
        return Answer()
    reason = (f"Claim {claim.sess_id} is still open. Before stopping, close it: `{close_command(claim)}`"
              f", or ask a human: `bsi gate request {claim.sess_id} \"what to decide\"`.")
    return Answer(0, wire.dumps(wire.block_stop(reason)))


def close_command(claim: Claim) -> str:
    """The `bsi claim close` command line this claim's tier requires (SPEC 6.5)."""
    from brain_tui.core.records.model import tier_of

    tier = tier_of(claim)
    if tier == 1:
        return f"bsi claim close {claim.sess_id} --status ok|partial|failed --files F…"
    if tier == 2:
        return f"bsi claim close {claim.sess_id} --tests-total N --tests-passed N --tests-failed 0 --files F…"
    return f"bsi claim close {claim.sess_id} --status ok (once every child claim is closed)"


#: The events whose handler lives in `hooks.context` (the session's context), imported only for them.
CONTEXT_EVENTS = {"session-start": "session_start", "user-prompt-submit": "user_prompt_submit"}


def handler(event_name: str) -> Callable[[HookContext], Answer]:
    """The handler of the hook event `event_name` (kebab-case, one `hooks.main` accepts)."""
    if event_name in CONTEXT_EVENTS:
        from brain_tui.hooks import context

        found: Callable[[HookContext], Answer] = getattr(context, CONTEXT_EVENTS[event_name])
        return found
    return {
        "pre-tool-use": pre_tool_use,
        "post-tool-use": post_tool_use,
        "session-end": session_end,
        "stop": stop,
        "notification": notification,
        "permission-request": permission_request,
    }[event_name]
