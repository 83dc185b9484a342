"""The protocol as MCP tools (SPEC 20.3): each tool calls the core facade and answers the CLI's `--json` shape.

A refusal is a result with `isError: true` and structured content
`{"error", "exit", "kind", "retryable", …payload}`. No tool decides a human's
action (approve, reject, pause, resume, abort, release). Brain text in a
result is made inert (control, bidi and zero-width characters shown as
placeholders) and cut short: it is context for a model.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from brain_tui.core.errors import BsiError, InvalidData, NotFound, RemoteUnreachable, os_refusal
from brain_tui.core.records.statuses import SignalState
from brain_tui.core.sessions import agents

if TYPE_CHECKING:
    from brain_tui.core.brain import Brain
    from brain_tui.core.rules.authority import Actor
    from brain_tui.core.write_path import Applied

#: What kind of refusal each exit code is, and whether trying again later may succeed.
KINDS: dict[int, tuple[str, bool]] = {
    1: ("preflight", False), 2: ("preflight", True), 3: ("preflight", False), 4: ("preflight", False),
    5: ("preflight", False), 6: ("preflight", False), 10: ("conflict", False), 11: ("tier", False),
    12: ("transition", False), 13: ("drift", False), 64: ("usage", False), 65: ("invalid", False),
    66: ("not_found", False), 69: ("remote", True), 75: ("contended", True),
    20: ("git_busy", False), 21: ("rebase_conflict", False), 22: ("fast_forward", False),
    23: ("commit_failed", False), 24: ("push_declined", False), 25: ("git", False),
    73: ("cannot_write", False), 74: ("disk_full", False),
}
MAX_TEXT = 4000
#: How long a tool's write waits on the brain's writer lock before it answers `contended` (retryable): a bsi write
#: holds it for seconds, and a client gives up on a call past its own limit (Codex: 60 s) with no word of why.
LOCK_PATIENCE_S = 20.0
#: What a tool's caller can do when the remote is not reached: no tool has the command line's `--offline` (a brain
#: with `sync: auto` sends every write through the remote), so this replaces the command line's advice.
REMOTE_ADVICE = ("nothing was changed: call the tool again later, when the remote answers, or ask a human to set "
                 "`sync: manual` in brain-compose.yml (writes are then committed locally and pushed by `bsi sync`)")
#: The same when the brain has no `origin` remote at all: no later call can reach it, so only a human's change helps.
NO_REMOTE_ADVICE = ("nothing was changed, and calling the tool again cannot help: ask a human to add the brain's "
                    "`origin` remote, or to set `sync: manual` in brain-compose.yml (writes are then committed "
                    "locally)")


def inert(value: Any, limit: int = MAX_TEXT) -> Any:
    """`value` with every string made inert: control/bidi/zero-width characters as placeholders, cut at `limit`."""
    from brain_tui.core.paths.text_safety import fold_placeholder as placeholder

    if isinstance(value, str):
        out = []
        for char in value[:limit]:
            code = ord(char)
            if code in (0x0A, 0x09):
                out.append(char)
                continue
            shown = placeholder(char) if (code < 0x20 or code >= 0x7F) else None
            out.append(char if shown is None else shown)
        text = "".join(out)
        return text + "…" if len(value) > limit else text
    if isinstance(value, Mapping):
        return {str(inert(k, 200)): inert(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [inert(v, limit) for v in value]
    return value


def refusal(exc: BsiError) -> dict[str, Any]:
    """The structured content of a refused call."""
    kind, retryable = KINDS.get(exc.exit_code, ("error", False))
    kind = exc.kind or kind
    retryable = retryable if exc.retryable is None else exc.retryable
    message = exc.message
    if isinstance(exc, RemoteUnreachable) and exc.advice:
        message = f"{exc.reason}; {REMOTE_ADVICE if exc.retry_helps else NO_REMOTE_ADVICE}"
    payload = {k: v for k, v in exc.payload.items() if k not in ("error", "exit", "kind", "retryable")}
    return {"error": message, "exit": exc.exit_code, "kind": kind, "retryable": retryable, **payload}


class Session:
    """The brain and the agent session this server serves: the only claims its tools act for (SPEC 21.4).

    Args:
        root: the brain.
        now: `--now` (tests, demos), else the brain's clock.
        environ: the server's environment (`BSI_SESSION`, `CLAUDE_CODE_SESSION_ID`).
        client: the agent process of the client that started the server (`core.agent_process`); None: found
            from this process's ancestors (`core.agent_process`). Never read from the environment.
    """

    def __init__(self, root: str | os.PathLike[str], now: str | None = None,
                 environ: Mapping[str, str] | None = None, client: str | None = None) -> None:
        import threading

        from brain_tui.core.sessions.agent_process import agent_process

        self.root = os.fspath(root)
        self._now = now
        self._brain: Brain | None = None
        self._opening = threading.Lock()  # the first tool calls arrive side by side: one Brain for them all
        self.environ = dict(os.environ if environ is None else environ)
        #: claims opened through this server (an agent without an ID still finds its own).
        self.opened: list[str] = []
        #: the agent process of the client that started this server (`core.agent_process`, "" when unknown).
        self.client = agent_process() if client is None else client

    @property
    def brain(self) -> Brain:
        """The facade, opened at the first tool call (the server answers `initialize` and `tools/list` without
        the core)."""
        with self._opening:
            if self._brain is None:
                from brain_tui.core.brain import Brain

                self._brain = Brain(self.root, now=self._now)
                self._brain.lock_patience = LOCK_PATIENCE_S
            return self._brain

    @property
    def agent_session(self) -> str | None:
        """The session the client gives its server (`$CLAUDE_CODE_SESSION_ID`; Gemini CLI gives none), when valid."""
        value = agents.agent_session_for_open(None, self.environ)
        return value if value and agents.valid_agent_session(value) else None

    @property
    def actor(self) -> Actor:
        """Who the tools act as: an agent speaking for the client's sessions and their claims.

        Its sessions: the one the client gave the server, and every agent session whose
        recorded agent process is the server's client (a Gemini session bound through
        this server, the successor of a `/clear`). Its claims: `$BSI_SESSION`, the
        claims opened through this server or through another server of the same client
        process that no hook bound yet and none would drop as too old (`pending/`), and the
        claims bound to those sessions.
        """
        from brain_tui.core.rules.authority import Actor, genuine_sessions
        from brain_tui.core.sessions import agent_files

        sessions = set(agents.sessions_of_process(self.brain.root, self.client))
        if self.agent_session:  # the client's word, when its binding is this client's (or not recorded yet)
            sessions.update(genuine_sessions(self.brain.root, [self.agent_session], self.client))
        pending = agent_files.pending_claims(self.brain.root, self.client, self.brain.now())
        claims = {s for s in (self.launched, *self.opened, *pending) if s}
        for session in sessions:
            claims.update(agents.bound_claims(self.brain.root, session))
        evidence = ("bsi mcp", f"client process {self.client or 'unknown'}")
        return Actor("agent", evidence, frozenset(sessions), frozenset(claims))

    @property
    def launched(self) -> str:
        """`$BSI_SESSION`: the claim a launcher gave the session (SPEC 20.5), "" when none.

        The value counts only when the client's agent process was itself started with it
        (`agent_tree.launcher_claim`): a server its shell started with another claim's ID gets nothing.
        """
        from brain_tui.core.rules.agent_tree import launcher_claim
        from brain_tui.core.sessions.agent_files import renamed_to

        named = launcher_claim(self.environ, self.root)
        return renamed_to(self.root, named) if named else ""  # a claim sync renamed: its new ID

    def last_write(self) -> Applied | None:
        """The brain's last write (`Brain.last_applied`); None before the brain is opened or written."""
        return self._brain.last_applied if self._brain is not None else None

    def own(self, sess_id: str | None, verb: str = "act for") -> str:
        """The claim meant: `sess_id` when it is this session's, else `$BSI_SESSION`, else the newest live claim of
        the session's (SPEC 20.1, `rules.own_claim`: the same whichever server of the agent is asked).

        Raises:
            InvalidData: `sess_id` is not a session ID (65): a tool acts for a claim, never as a
                human (``human:NAME``) or an instance.
            NotFound: no such claim, or the session holds none (66).
            NotYours: `sess_id` is another session's claim (77, kind `not_yours`), naming its holder.
        """
        if sess_id:
            from brain_tui.core.ids import valid_session_id
            from brain_tui.core.rules.authority import require_owner
            from brain_tui.core.rules.claims import require_claim

            if not valid_session_id(sess_id):
                raise InvalidData(f"invalid sess_id {sess_id[:80]!r}: a session ID (sess-…); "
                                  "a tool acts for the session's claim, never as a human")
            snapshot = self.brain.snapshot()
            claim = require_claim(snapshot, sess_id)  # a file that does not read: corrupt (65), as the CLI says
            require_owner(self.actor, claim, snapshot, verb)
            return sess_id
        if self.launched:
            return self.launched
        from brain_tui.core.rules.own_claim import own_claim

        own = own_claim(self.brain.snapshot(), self.actor.claims)
        if own is not None:
            return own
        raise NotFound("this session holds no claim: give sess_id, or open one with claim_open")


def call(fn: Callable[[], dict[str, Any]], session: Session | None = None) -> tuple[dict[str, Any], bool]:
    """Run one tool body: ``(structured content, is_error)``; a core refusal is a result, never an exception.

    With `session`, what the call's write warns of (`Applied.warnings`: the local writes its sync dropped,
    `reconcile.dropped_warning`, the words `bsi` prints) comes with the result as `warnings`, when there is any.
    """
    before = session.last_write() if session is not None else None
    try:
        return inert(_warned(fn(), session, before)), False
    except BsiError as exc:
        return inert(_warned(refusal(exc), session, before)), True
    except OSError as exc:  # the system's refusal (read-only, full, a file in the way), worded as the CLI words it
        refused = os_refusal(exc, agent=False)  # (agent=True would point an agent to these very tools)
        if refused is not None:
            return inert(refusal(refused)), True
        return _internal(exc), True
    except Exception as exc:  # noqa: BLE001 - one line for the agent; the server keeps running
        return _internal(exc), True


def _internal(exc: Exception) -> dict[str, Any]:
    """The answer to a bug: one line, never a traceback."""
    return {"error": f"internal error ({type(exc).__name__}): try the same with `bsi` to see more",
            "exit": 70, "kind": "internal", "retryable": False}


def _warned(data: dict[str, Any], session: Session | None, before: object) -> dict[str, Any]:
    """`data` with the warnings of the write the call made (none when it made none: `last_write` unchanged)."""
    applied = session.last_write() if session is not None else None
    if applied is None or applied is before or not applied.warnings:
        return data
    return {**data, "warnings": list(applied.warnings)}


# ---------------------------------------------------------------------------------------------
# Tool bodies (plain functions over a Session; server.py registers them)
# ---------------------------------------------------------------------------------------------
def brain_state(s: Session) -> dict[str, Any]:
    """SPEC 16, as `bsi env --json`, with `human_action_needed` naming the stale claims (None when there are none)."""
    from brain_tui.core.records.views import stale_notice

    out: dict[str, Any] = s.brain.env(2.0).as_dict()
    out["human_action_needed"] = stale_notice(s.brain.snapshot())
    return out


def my_claim(s: Session, sess_id: str | None = None) -> dict[str, Any]:
    """The session's claim, as `bsi claim show --json`, with its liveness; its status and TTL as the write rules
    read them for this agent (at the machine's clock when the server's runs behind, `authority.judged`)."""
    from brain_tui.core.records.views import claim_json
    from brain_tui.core.rules.authority import judged
    from brain_tui.core.rules.claims import require_claim
    from brain_tui.core.rules.own_writes import writing_as

    own = s.own(sess_id, "show")
    with writing_as(s.actor):
        snapshot = judged(s.brain.snapshot())
    out = claim_json(require_claim(snapshot, own), snapshot)
    live = s.brain.agents.liveness().get(own)
    out["liveness"] = live.as_dict() if live else None
    return out


def claim_open(s: Session, scope: list[str], story: str = "", ttl: str | None = None, type: str | None = None,
               satellite_type: str | None = None, level: str | None = None, parent: str | None = None,
               slug: str | None = None, on_done: str | None = None, on_partial: str | None = None,
               on_fail: str | None = None) -> dict[str, Any]:
    """`bsi claim open --json`, bound to the agent session."""
    from brain_tui.core.clock import parse_duration
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules.claims import OpenRequest

    brain = s.brain
    if not scope:
        raise InvalidData("claim_open needs at least one scope entry")
    entries = parse_scope(list(scope), brain.root)
    req = OpenRequest(scope=entries, ttl=parse_duration(ttl) if ttl else brain.config.ttl_default,
                      instance=brain.instance, type=type, satellite_type=satellite_type, level=level, parent=parent,
                      story=story, slug=slug, on_done=on_done, on_partial=on_partial, on_fail=on_fail,
                      agent_session=s.agent_session)
    sess_id = brain.open_claim(req, actor=s.actor, mcp_client=s.client)  # the client's next hook binds it
    s.opened.append(sess_id)
    return _claim_result(brain, sess_id, {})


def _claim_result(brain: Brain, sess_id: str, outcome: dict[str, Any]) -> dict[str, Any]:
    """The claim as the write left it, with the write's own keys over it (the CLI's `--json` document)."""
    from brain_tui.core.records.views import claim_result

    applied = brain.last_applied
    return claim_result(sess_id, applied.snapshot if applied else None, brain.snapshot, outcome)


def claim_renew(s: Session, sess_id: str | None = None, ttl: str | None = None) -> dict[str, Any]:
    """`bsi claim renew --json`."""
    from brain_tui.core.clock import parse_duration

    own = s.own(sess_id, "renew")
    expires = s.brain.renew_claim(own, parse_duration(ttl) if ttl else None, actor=s.actor)
    return _claim_result(s.brain, own, {"sess_id": own, "expires_at": expires})


def claim_close(s: Session, sess_id: str | None = None, status: str | None = None, files: list[str] | None = None,
                commit: str | None = None, tests_total: int | None = None, tests_passed: int | None = None,
                tests_failed: int | None = None, notes: str | None = None) -> dict[str, Any]:
    """`bsi claim close --json` (files default to what the hooks saw the session touch)."""
    from brain_tui.core.rules.claims import CloseRequest

    own = s.own(sess_id, "close")
    req = CloseRequest(status=status, files=list(files or []), commit=commit, tests_total=tests_total,
                       tests_passed=tests_passed, tests_failed=tests_failed, notes=notes)
    out = s.brain.close_claim(own, req, actor=s.actor)
    return _claim_result(s.brain, out.sess_id, {"sess_id": out.sess_id, "status": out.status, "tier": out.tier,
                                                "result": out.result, "signals": out.signals})


def claim_list(s: Session, status: list[str] | None = None, all: bool = False) -> dict[str, Any]:
    """`bsi claim list --json`."""
    from brain_tui.core.records.views import claim_json, listed_claims

    claims, snapshot = listed_claims(s.brain.snapshot, status, all)
    return {"claims": [claim_json(c, snapshot) for c in claims], "corrupt": [c.as_dict() for c in snapshot.corrupt]}


def check_scope(s: Session, scopes: list[str], parent: str | None = None,
                satellite_type: str | None = None, ttl: str | None = None) -> dict[str, Any]:
    """`bsi check-scope --json`: the conflicts a claim on `scopes` would meet (opens nothing), judged as `claim_open`
    judges them for the server's agent, whatever its process shows (a delegation through an ancestor stale by the
    machine's clock is none, for a claim of `ttl` live then when the given clock runs behind)."""
    from brain_tui.core.clock import parse_duration
    from brain_tui.core.paths.scope import parse_scope
    from brain_tui.core.rules.own_writes import writing_as

    if not scopes:
        raise InvalidData("check_scope needs at least one scope entry")
    entries = parse_scope(list(scopes), s.brain.root)
    with writing_as(s.actor):
        conflicts = s.brain.check_scope(entries, parent=parent, satellite_type=satellite_type, memo=True,
                                        ttl=parse_duration(ttl) if ttl else None)
    return {"conflicts": [c.as_dict() for c in conflicts]}


def preflight(s: Session, file: str, sess_id: str | None = None) -> dict[str, Any]:
    """`bsi preflight check --json`: go, or a refusal with the code of SPEC 10 as `exit`; asked as the server's agent,
    whatever its process shows (an agent's claim is judged at the machine's clock when the given one runs behind)."""
    from brain_tui.core.rules.own_writes import writing_as

    with writing_as(s.actor):
        return s.brain.preflight(s.own(sess_id, "preflight"), file, actor=s.actor).as_dict()


def signal_send(s: Session, to: str, type: str, payload: str, scope: str = "",
                sess_id: str | None = None) -> dict[str, Any]:
    """`bsi signal send --json` from the session's claim (else from this instance)."""
    try:
        sender = s.own(sess_id, "send a signal from")
    except NotFound:
        sender = s.brain.instance
    sig_id = s.brain.signals.send(sender, to, type, payload, scope, actor=s.actor)
    return {"sig_id": sig_id, "duplicate": True} if sig_id is None else {"sig_id": sig_id}


def signal_list(s: Session, pending: bool = False, to: str | None = None) -> dict[str, Any]:
    """`bsi signal list --json` (archived signals left out, as without `--all`)."""
    from brain_tui.core.records.views import signal_json
    from brain_tui.core.rules.signals import listed_signals

    sigs, corrupt = listed_signals(lambda only: s.brain.snapshot(only_statuses=only), to, pending, False)
    out: dict[str, Any] = {"signals": [signal_json(x) for x in sigs]}
    if corrupt:  # as the CLI: the corrupt rows when there are any
        out["corrupt"] = [c.as_dict() for c in corrupt]
    return out


def signal_ack(s: Session, sig_id: str) -> dict[str, Any]:
    """`bsi signal ack --json`, signed by the claim it is addressed to: only a signal to one of the session's own
    claims (the core refuses another's, `NotYours`); another session's signals stay pending for it."""
    changed = s.brain.signals.ack(sig_id, actor=s.actor)
    return {"sig_id": sig_id, "state": SignalState.DELIVERED.value if changed else "unchanged"}


def gate_request(s: Session, message: str, sess_id: str | None = None) -> dict[str, Any]:
    """`bsi gate request --json`: returns at once with `waiting_human`."""
    own = s.own(sess_id, "request a gate for")
    return s.brain.gates.request(own, message, actor=s.actor).as_dict()


def gate_status(s: Session, sess_id: str | None = None) -> dict[str, Any]:
    """`bsi gate status --json`: the claim and its subtree."""
    from brain_tui.core.records.views import claim_json

    snapshot, claim, subtree = s.brain.gates.status(s.own(sess_id, "show"))
    return {"claim": claim_json(claim, snapshot), "subtree": [claim_json(c, snapshot) for c in subtree]}


def lock_acquire(s: Session, file: str, ttl_min: int | None = None, sess_id: str | None = None) -> dict[str, Any]:
    """`bsi lock acquire --json` for the session's claim."""
    return s.brain.locks.acquire(file, s.own(sess_id, "lock a file for"), ttl_min, actor=s.actor).as_dict()


def lock_release(s: Session, file: str, sess_id: str | None = None) -> dict[str, Any]:
    """`bsi lock release --json` for the session's claim."""
    return s.brain.locks.release(file, s.own(sess_id, "unlock a file for"), actor=s.actor).as_dict()


def as_text(data: dict[str, Any]) -> str:
    """The JSON text of a result (the content block beside the structured content)."""
    from brain_tui.core.json_shape import json_text

    return json_text(data)
