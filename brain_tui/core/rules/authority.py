"""Who is acting: a human in their own terminal, or an agent through its tools (SPEC 21).

A process is an agent's when its environment carries an agent's markers
(`AGENT_ENV_MARKERS`) or an agent process (Claude Code, Codex, Gemini CLI) is
among its ancestors. The process is read, never a parameter: an agent cannot
pass itself off as a human (`effective`), and a human's verbs (approve,
reject, pause, resume, abort, release) refuse inside an agent's process
whatever the spelling that reached them (`require_human`). An agent acts only
for its own claims (`owns`, `require_owner`): those named by `$BSI_SESSION`
(or opened through its MCP server) and those bound to its agent sessions.

Cheap by design: the environment is a dict lookup; the ancestor walk
(`agent_tree`) reads a few `/proc` files once per process. Standard library
only on Linux, so the hooks may import it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from brain_tui.core.errors import HumanOnly, NotYours
from brain_tui.core.paths.layout import SESSION_VARIABLE
from brain_tui.core.record import record, replace
from brain_tui.core.rules.agent_tree import agent_ancestors as agent_ancestors
from brain_tui.core.rules.agent_tree import launched_for, launcher_claim
from brain_tui.core.sessions.agent_files import bound_claims

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Literal

    from brain_tui.core.records.model import BrainSnapshot, Claim

#: Environment variables that only an agent's process carries (its shell, hooks, MCP servers, launched satellites).
AGENT_ENV_MARKERS: tuple[str, ...] = (
    # Claude Code: Bash tool (CLAUDECODE=1), hooks and stdio MCP servers (CLAUDE_CODE_SESSION_ID)
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_CODE_ENTRYPOINT",
    # a claim given to the session by `bsi launch` or the session-start hook (SPEC 20.1, 20.5)
    SESSION_VARIABLE,
    # Gemini CLI: its shell tool (GEMINI_CLI=1), its hooks (GEMINI_SESSION_ID, GEMINI_PROJECT_DIR)
    "GEMINI_CLI",
    "GEMINI_SESSION_ID",
    "GEMINI_PROJECT_DIR",
    # Codex CLI: its sandboxed commands, the thread of its shell tool, the npm/bun launcher of the agent
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    "CODEX_THREAD_ID",
    "CODEX_SESSION_ID",
    "CODEX_CI",
    "CODEX_MANAGED_BY_NPM",
    "CODEX_MANAGED_BY_BUN",
    # this product: a process it starts later on an agent's behalf (`HEIR_MARKER`, `heir_marks`)
    "BSI_AGENT_HEIR",
)

#: Set by a long-lived product process (the browser cockpit's server) judged an agent's, for each process it
#: starts later: the agent above may have exited by then (`nohup brain-tui --serve &` from its shell), and the
#: new process's own ancestors would no longer show it.
HEIR_MARKER = "BSI_AGENT_HEIR"

#: The markers whose value is the agent's own session ID (what a claim's `agent_session:` binds).
AGENT_SESSION_MARKERS: tuple[str, ...] = (
    "CLAUDE_CODE_SESSION_ID",
    "GEMINI_SESSION_ID",
    "CODEX_THREAD_ID",
    "CODEX_SESSION_ID",
)

_AGENT_SESSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\Z")
_EVIDENCE_ROOM = 3


@record
class Actor:
    """Who a core call acts as.

    Attributes:
        kind: ``human`` (their own terminal, the cockpit) or ``agent`` (its tools).
        evidence: why it is an agent (``env CLAUDECODE``, ``ancestor process claude (pid 812)``); empty for a human.
        agent_sessions: the agent session IDs it speaks for (`CLAUDE_CODE_SESSION_ID`, `GEMINI_SESSION_ID`, …).
        claims: the claim IDs it speaks for directly (`$BSI_SESSION` as its agent process was launched with,
            `agent_tree.launcher_claim`; an MCP server adds the claims opened through it).
        process_sessions: the agent sessions recorded for its agent process, whatever session ID it names now
            (`acting_in`): the same agent, so a human's pause of their claims stops it too (`held.require_none_held`).
        process_claims: the claims bound on this machine to those sessions (`acting_in`), for the same rule.
    """

    kind: Literal["human", "agent"]
    evidence: tuple[str, ...] = ()
    agent_sessions: frozenset[str] = frozenset()
    claims: frozenset[str] = frozenset()
    process_sessions: frozenset[str] = frozenset()
    process_claims: frozenset[str] = frozenset()

    @property
    def is_agent(self) -> bool:
        """True for an agent's actor."""
        return self.kind == "agent"

    def with_claims(self, *sess_ids: str) -> Actor:
        """The same actor speaking also for `sess_ids` (claims opened through it, or bound to its sessions)."""
        return replace(self, claims=self.claims | frozenset(s for s in sess_ids if s))

    def describe(self) -> str:
        """One line: ``human`` or ``agent (evidence; …)`` (for messages)."""
        if not self.is_agent:
            return "human"
        return f"agent ({_evidence_text(self.evidence)})"


#: The actor of a human's own terminal.
HUMAN = Actor("human")

def current_actor(environ: Mapping[str, str] | None = None) -> Actor:
    """The process's actor (`environ`, default `os.environ`, and always this process's ancestors): an agent
    when an agent marker is set or an agent process is among the ancestors, with the sessions and claim it names.
    """
    env = os.environ if environ is None else environ
    evidence = [f"env {name}" for name in AGENT_ENV_MARKERS if env.get(name, "").strip()]
    evidence.extend(agent_ancestors())
    sessions = frozenset(value for value in (env.get(name, "").strip() for name in AGENT_SESSION_MARKERS)
                         if _valid_session(value))
    named = launcher_claim(env)  # the launcher's claim, when the agent process itself carries it
    claims = frozenset({named}) if named else frozenset()
    if not evidence:
        return HUMAN
    return Actor("agent", tuple(evidence), sessions, claims)


def heir_marks(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What a process this one starts later must carry to be judged as this one is now (SPEC 21.1).

    Call it when the long-lived process starts, while its ancestors still show the agent that started it, and
    pass the result (``{HEIR_MARKER: "1"}`` for an agent's process, else empty) to every process it starts.
    """
    return {HEIR_MARKER: "1"} if current_actor(environ).is_agent else {}


def own_agent_session() -> str | None:
    """The agent session this process speaks for, first of `AGENT_SESSION_MARKERS` that is set; None if none."""
    for name in AGENT_SESSION_MARKERS:
        value = os.environ.get(name, "").strip()
        if _valid_session(value):
            return value
    return None


def effective(actor: Actor | None) -> Actor:
    """The actor a core call acts as.

    The process's own actor when `actor` is None, or when `actor` claims to be a human
    while the process is an agent's (an agent never passes itself off as a human);
    otherwise the agent actor given (an MCP server's, with the claims opened through it).
    """
    if actor is not None and actor.is_agent:
        return actor
    return current_actor()


def acting_in(root: str | os.PathLike[str], actor: Actor | None = None) -> Actor:
    """`effective(actor)`, speaking also for the claims the brain at `root` binds to its agent sessions.

    An agent's claims are those it names (`$BSI_SESSION`, opened through its MCP server) plus
    those the local records (`.brain/agents/sessions/`) bind to its agent sessions: opened by it,
    or carried over to it by a hand-over (SPEC 20.1). A process whose environment names no agent session (Gemini
    CLI's shell) speaks for the sessions recorded for its agent process, as that agent's MCP server does.
    """
    acting = effective(actor)
    if not acting.is_agent:
        return acting
    if actor is None or not actor.is_agent:
        # the process's own environment names its agent sessions: each counts only from its own agent process
        from brain_tui.core.sessions.agent_files import sessions_of_process
        from brain_tui.core.sessions.agent_process import agent_process

        process = agent_process()
        recorded = frozenset(sessions_of_process(root, process))
        acting = replace(acting, process_sessions=recorded, process_claims=frozenset(
            sess_id for session in recorded for sess_id in bound_claims(root, session)))
        if acting.agent_sessions:
            acting = replace(acting, agent_sessions=genuine_sessions(root, acting.agent_sessions, process))
        else:  # a shell given no session ID (Gemini CLI's): the sessions its agent process is recorded for
            acting = replace(acting, agent_sessions=recorded)
    if actor is None and acting.claims and not launched_for(root):  # launched for another brain: not this one's
        acting = replace(acting, claims=frozenset())
    if acting.claims:  # a launcher's `$BSI_SESSION` naming a claim sync renamed names its new ID
        from brain_tui.core.sessions.agent_files import renamed_to

        acting = replace(acting, claims=frozenset(renamed_to(root, sess_id) for sess_id in acting.claims))
    bound = [sess_id for session in sorted(acting.agent_sessions) for sess_id in bound_claims(root, session)]
    return acting.with_claims(*bound) if bound else acting


def require_own_session(root: str | os.PathLike[str], actor: Actor, agent_session: str) -> None:
    """An agent binds a new claim only to its own agent session (SPEC 20.1, 21.4).

    Its own: one it speaks for (`acting_in` kept it), or one no agent process is recorded for yet
    (`--agent-session` where the client's shell carries no ID) unless that session holds claims and
    this process is already another session's agent: the binding would record this process for it,
    and hand it the claims a human bound to it. Another agent's session would put the claim on that
    agent: its hooks would hold it to the new scope.

    Raises:
        NotYours: `actor` is an agent and `agent_session` is recorded for another agent process, or holds
            claims while this process is another session's agent (77), naming the claims that session holds.
    """
    if not actor.is_agent or agent_session in actor.agent_sessions:
        return
    from brain_tui.core.sessions.agent_files import bound_claims as held_by
    from brain_tui.core.sessions.agent_files import recorded_process, speaks_for_another
    from brain_tui.core.sessions.agent_process import agent_process

    if not recorded_process(root, agent_session) and not (
            held_by(root, agent_session) and speaks_for_another(root, agent_session, agent_process())):
        return
    held = ", ".join(held_by(root, agent_session)[-5:]) or "none"
    raise NotYours(f"cannot bind a claim to agent session {agent_session}: it is another agent's (its claims: "
                   f"{held}); this agent binds only its own session ({_claims_text(actor)})",
                   {"agent_session": agent_session, "holder": agent_session})


def genuine_sessions(root: str | os.PathLike[str], sessions: Iterable[str], process: str) -> frozenset[str]:
    """The agent sessions among `sessions` that `process` (`core.agent_process`) may speak for (SPEC 20.1, 21.4).

    A session whose binding recorded another agent process is that agent's: a shell that sets
    `CLAUDE_CODE_SESSION_ID=<its ID>` for one command (or starts `bsi mcp` so) names it without
    being it. A session with no process recorded yet (a binding made by hand, or on another machine) is
    taken only by a process that is no other session's agent (`agent_files.speaks_for_another`: each
    session's process is recorded at its `session-start`); the check only reads.
    """
    from brain_tui.core.sessions.agent_files import recorded_process, speaks_for_another

    return frozenset(session for session in sessions if (known := recorded_process(root, session)) == process
                     or (known == "" and not (process and speaks_for_another(root, session, process))))


def sender_for(actor: Actor, instance: str, snapshot: BrainSnapshot | None = None) -> str:
    """Who a signal is from when no sender is given: a human's instance; an agent's only live claim.

    An agent with no live claim in `snapshot` (None: every claim it names counts), or several, gets the
    instance, which the send then refuses (asking for `--from`).
    """
    if not actor.is_agent:
        return instance
    mine = sorted(actor.claims)
    if snapshot is not None:
        mine = [sess_id for sess_id in mine if (claim := snapshot.claim(sess_id)) is not None and not claim.is_terminal]
    return mine[0] if len(mine) == 1 else instance


def check_owner(snapshot: BrainSnapshot, actor: Actor, sess_id: str, verb: str, tree: bool = False) -> None:
    """An agent acts only for its own claims (SPEC 21.4); a human for any.

    A claim that is not in `snapshot` is left to the rule, which names what is wrong (65/66). With `tree`, an
    agent holding an ancestor is accepted too (a delegation: launching an agent for a child).

    Raises:
        NotYours: `actor` is an agent and does not hold `sess_id` (nor, with `tree`, an ancestor) (77).
    """
    if not actor.is_agent:
        return
    claim = snapshot.claim(sess_id)
    if claim is not None and not (tree and owns_tree(actor, claim, snapshot)):
        require_owner(actor, claim, snapshot, verb)


#: How a refusal names a verb of more than one word ("an agent cannot …").
_ACTS = {"agent answer": "answer a session", "agent interrupt": "interrupt a session",
         "agent stop": "stop a session", "hooks install": "install the hooks",
         "hooks uninstall": "remove the hooks", "mcp install": "install the MCP server"}


def require_human(verb: str, target: str, acting: Actor | None = None) -> None:
    """Refuse a human's verb inside an agent's process (SPEC 21.2), whatever spelling reached it.

    Reads the process itself (environment and ancestors), never a parameter; `acting`, an agent the call acts as (an
    MCP server's, `own_writes.acting`), refuses too (`effective`). The message has no ``bsi:`` prefix: the CLI adds it,
    an MCP result shows the text alone.

    Raises:
        HumanOnly: the process runs inside an agent session, or `acting` is an agent (exit 77).
    """
    actor = effective(acting)
    if not actor.is_agent:
        return
    fallback = (f"bsi {verb}" if verb.startswith(("hooks ", "mcp ")) else
                f"bsi {verb} {target}" if verb.startswith("agent ") else f"bsi gate {verb} {target}")
    command = {"release": f"bsi claim release {target} --reason TEXT",
               "repair": f"bsi claim repair {target}"}.get(verb, fallback)
    raise HumanOnly(
        f"{verb} {target} is a human's decision: an agent cannot {_ACTS.get(verb, verb)} (this process runs inside an "
        f"agent session: {_evidence_text(actor.evidence)}). Ask the pilot: the cockpit (`brain-tui`) or "
        f"`{command}` in their own terminal.",
        {"verb": verb, "target": target, "evidence": list(actor.evidence)},
    )


def require_true_clock(now: datetime) -> None:
    """Refuse a write at a time more than SPEC 3's clock skew ahead of the system clock by an agent (the one a verb
    acts as, `own_writes.acting`: an MCP server's whatever its process shows, else the process's own actor).

    `--now` and `$BRAIN_NOW` are for tests, simulations and demos: an agent setting its clock ahead would expire
    other sessions' locks (taken over, or removed by `lock cleanup`) and mark their claims stale. The process is
    read only when the clock runs ahead, so an ordinary write pays one clock read.

    Raises:
        HumanOnly: the clock runs ahead and an agent acts (exit 77).
    """
    from brain_tui.core.clock import SKEW_TOLERANCE, system_clock

    ahead = now - system_clock()
    if ahead <= SKEW_TOLERANCE:
        return
    from brain_tui.core.rules.own_writes import acting

    actor = effective(acting())  # who acts: an MCP server's agent, whatever its process shows
    if not actor.is_agent:
        return
    raise HumanOnly(
        f"a write at {now.isoformat()} is {int(ahead.total_seconds() // 60)} min ahead of this machine's clock: an "
        f"agent's clock cannot run ahead (it would expire other sessions' locks and claims; this process runs inside "
        f"an agent session: {_evidence_text(actor.evidence)}). Drop --now and $BRAIN_NOW: they are for a human's "
        "tests and demos.",
        {"verb": "write", "target": now.isoformat(), "evidence": list(actor.evidence)},
    )


def agents_time(now: datetime) -> datetime | None:
    """When an agent judges a claim: the later of its clock and the machine's; None for a human.

    A `--now` or `$BRAIN_NOW` behind the machine's clock would keep alive a claim that ran out (stale, held until a
    human releases it, SPEC 6.3) and let its agent write, lock or raise a gate for it. A human may simulate any time
    (tests, demos, the cockpit's snapshots). Who judges is who acts (`own_writes.acting`): the agent a verb was given
    (an MCP server's, whatever its process), else the process's own actor.
    """
    from brain_tui.core.rules.own_writes import acting

    if not effective(acting()).is_agent:
        return None
    from brain_tui.core.clock import system_clock

    return max(now, system_clock())


def judged(snapshot: BrainSnapshot) -> BrainSnapshot:
    """`snapshot` as its claims are judged in this process: at `agents_time` in an agent's, as it is in a human's."""
    at = agents_time(snapshot.now)
    return snapshot if at is None or at <= snapshot.now else replace(snapshot, now=at)


def owns(actor: Actor, claim: Claim, snapshot: BrainSnapshot) -> bool:
    """Whether `actor` acts for `claim`: a human always; an agent for its own claims only (SPEC 21.4).

    An agent owns a claim it names directly (`$BSI_SESSION`, opened through its MCP server,
    bound locally to its sessions) or whose `agent_session:` is one of its agent sessions.
    """
    del snapshot  # ownership is direct; delegation under a parent walks ancestors (`owns_tree`)
    if not actor.is_agent:
        return True
    if claim.sess_id in actor.claims:
        return True
    bound = claim.agent_session
    return bound is not None and bound in actor.agent_sessions


def owns_tree(actor: Actor, claim: Claim, snapshot: BrainSnapshot) -> bool:
    """Whether `actor` holds `claim` or one of its ancestors (who may delegate under it)."""
    return owns(actor, claim, snapshot) or any(owns(actor, up, snapshot) for up in snapshot.ancestors(claim.sess_id))


def holder_text(claim: Claim) -> str:
    """Who holds `claim`, for a refusal: ``sess-… (agent session …, instance …)``."""
    parts = []
    if claim.agent_session:
        parts.append(f"agent session {claim.agent_session}")
    if claim.instance:
        parts.append(f"instance {claim.instance}")
    return f"{claim.sess_id} ({', '.join(parts)})" if parts else claim.sess_id


def _claims_text(actor: Actor) -> str:
    mine = sorted(actor.claims)
    sessions = sorted(actor.agent_sessions)
    if not mine and not sessions:
        return "it holds no claim: open one with `bsi claim open` from this session"
    shown = claims_list(actor)
    if sessions:
        shown += f"; agent session {', '.join(sessions)}"
    return f"its claims: {shown}"


def claims_list(actor: Actor, room: int = 5) -> str:
    """The claims `actor` names, for a message: at most `room` of them (newest IDs last), or ``none named``."""
    mine = sorted(actor.claims)
    if not mine:
        return "none named"
    shown = ", ".join(mine[-room:])
    return f"{shown} and {len(mine) - room} more" if len(mine) > room else shown


def require_owner(actor: Actor, claim: Claim, snapshot: BrainSnapshot, verb: str) -> None:
    """Refuse an agent acting for another session's claim (SPEC 21.4), naming the holder.

    Raises:
        NotYours: the actor is an agent and does not own `claim` (exit 77).
    """
    if not owns(actor, claim, snapshot):
        raise _not_yours(claim, f"cannot {verb} {claim.sess_id}", f"this agent acts only for its own claims "
                                f"({_claims_text(actor)})")


def require_own_file(actor: Actor, snapshot: BrainSnapshot, sess_id: str, file: str) -> None:
    """An agent locks for its claim only a file that claim may write (SPEC 21.4, preflight 1 of SPEC 10).

    A lock outside its own scope serves the agent nothing (preflight refuses the write) and holds
    another session's file from it. A claim that is not there, or a path that does not normalise,
    is left to the lock rule, which names what is wrong (65/66).

    Raises:
        PreflightRefused: code 1 (scope violation), naming the claims whose scope holds the file.
    """
    claim = snapshot.claim(sess_id) if actor.is_agent else None
    if claim is None:
        return
    from brain_tui.core.errors import BsiError, PreflightRefused
    from brain_tui.core.paths.scope import covers_file, normalize_path
    from brain_tui.core.records.statuses import BLOCKING_STATUSES

    try:
        norm = normalize_path(file).rstrip("/")
    except BsiError:
        return
    if covers_file(claim.scope, norm, snapshot.root):
        return
    held = [c for c in snapshot.claims if c.sess_id != sess_id and c.status in BLOCKING_STATUSES
            and covers_file(c.scope, norm, snapshot.root)]
    where = f"; it is in the scope of {', '.join(holder_text(c) for c in held[:3])}" if held else ""
    raise PreflightRefused(1, f"cannot lock {norm} for {sess_id}: it is outside the scope of {sess_id} "
                              f"({claim.scope_text}){where}; an agent locks only files its own claim may write",
                           {"file": norm, "sess_id": sess_id, "holders": [c.sess_id for c in held]})


def require_delegation(actor: Actor, parent: Claim, snapshot: BrainSnapshot) -> None:
    """A child under `parent` is opened only by its holder (the actor owns it or an ancestor) or a human.

    Raises:
        NotYours: an agent that holds neither `parent` nor any ancestor of it (exit 77), naming the holder.
    """
    if not owns_tree(actor, parent, snapshot):
        raise _not_yours(parent, f"cannot open a child under {parent.sess_id}",
                         f"only its holder or a human delegates under it ({_claims_text(actor)})")


def _not_yours(claim: Claim, what: str, rule: str) -> NotYours:
    """The refusal of an act for `claim` by an agent that does not hold it, naming the holder."""
    return NotYours(f"{what}: it is held by {holder_text(claim)}; {rule}",
                    {"sess_id": claim.sess_id, "holder": claim.sess_id, "agent_session": claim.agent_session,
                     "instance": claim.instance or None})


def _valid_session(value: str) -> bool:
    return bool(_AGENT_SESSION_RE.match(value)) and ".." not in value


def _evidence_text(evidence: tuple[str, ...]) -> str:
    shown = ", ".join(evidence[:_EVIDENCE_ROOM])
    more = len(evidence) - _EVIDENCE_ROOM
    return f"{shown} and {more} more" if more > 0 else shown
