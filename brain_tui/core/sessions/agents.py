"""Agent sessions bound to claims, and their liveness (SPEC 20.1, 20.4).

Local only, never committed: everything here lives under ``.brain/agents/``.

* ``.brain/agents/<sess-id>.json`` — one record per claim with a bound agent
  session: the agent session ID(s), the state (``working``, ``needs_input``,
  ``idle``, ``ended``), the last activity and tool, the files it touched. The
  hooks write it (``post-tool-use``, ``notification``, ``stop``,
  ``session-end``); the cockpit reads it through :func:`read_liveness`.
* ``.brain/agents/sessions/<agent-session>.json`` — which claims an agent
  session opened (written when a claim is opened with ``agent_session``), so a
  hook finds its claim without reading the brain.
  It also holds the session's agent process (``process``, see
  ``core.agent_process``), recorded at the first binding.
* ``.brain/agents/opening/<sess-id>.json`` — a binding written before its
  claim's commit and made after it (a kill between the two: the next hook makes
  it): see ``core.sessions.opening``.
* ``.brain/agents/handover/`` and ``.brain/agents/pending/`` — bindings
  waiting to be carried over (``/clear``, compaction) or made (a claim opened
  through ``bsi mcp`` by a client that gives its server no session ID): see
  ``core.handover``.

Every write is atomic (temp file in the same folder, then rename); a record
that does not read is ignored, never an error. This module imports only the
standard library, so the hooks stay cheap.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timedelta

from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.paths.layout import AGENTS_DIR
from brain_tui.core.record import record
from brain_tui.core.records.state_json import check_lock, open_lock
from brain_tui.core.sessions.agent_files import (
    AGENT_SESSION_ENV,
    SESS_RE,
    agents_dir,
    bound_claims,
    env_agent_session,
    read_record,
    session_path,
    sessions_of_process,
    valid_agent_session,
)

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

_SESS_RE = SESS_RE
_dir = agents_dir
_read = read_record
_session_path = session_path

__all__ = [
    "AGENTS_DIR",
    "AGENT_SESSION_ENV",
    "agent_session_for_open",
    "IDLE_AFTER",
    "STATES",
    "Agents",
    "Liveness",
    "bound_claims",
    "sessions_of_process",
    "record_binding",
    "record_activity",
    "record_state",
    "Transcript",
    "transcript_of",
    "note_event",
    "read_liveness",
    "unseen",
    "first_time",
    "valid_agent_session",
]

#: The states a bound agent session can be in (SPEC 20.4).
STATES = ("working", "needs_input", "idle", "ended")
#: A session that did nothing for this long reads as `idle` (unless it needs input or ended).
IDLE_AFTER = timedelta(minutes=10)
#: At most this many touched files are kept per claim (the most recent).
MAX_TOUCHED = 500
#: At most this many "already brought in" item keys are kept per claim.
MAX_SEEN = 2000
#: Why a session waits: its kind and message are cut to these many characters.
MAX_INPUT_KIND = 64
MAX_INPUT_MESSAGE = 1000
#: A transcript path longer than this is not recorded.
MAX_TRANSCRIPT_PATH = 4096
@record
class Liveness(JsonShaped):
    """What the hooks last saw of the agent session bound to one claim.

    Attributes:
        sess_id: the claim.
        agent_session: the agent session ID bound to it now (the latest after a hand-over).
        state: ``working``, ``needs_input``, ``idle`` or ``ended``.
        last_activity: the last hook event seen, or None.
        last_tool: the tool of the last tool event (``Edit``, ``Bash``…), or None.
        touched: files the session wrote, brain-relative, oldest first.
        transcript: the session's transcript file as its last hook event gave it (absolute), or None.
        agent: the client that gave it (`claude`, `codex`, `gemini`), or None.
        input_kind: why it waits, when `needs_input` (the client's notification type:
            ``permission_prompt``, ``elicitation_dialog``, ``permission_request``…), or None.
        input_message: what the client said it waits for (hostile text, as recorded), or None.
    """

    sess_id: str
    agent_session: str | None
    state: str
    last_activity: datetime | None
    last_tool: str | None
    touched: tuple[str, ...]
    transcript: str | None = None
    agent: str | None = None
    input_kind: str | None = None
    input_message: str | None = None


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------
def _write(path: str, data: Mapping[str, Any]) -> None:
    """Write one record atomically (temp file + rename); folders made as needed."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".bsi-tmp-{os.getpid()}-{os.path.basename(path)}")
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


@contextlib.contextmanager
def _locked(root: str | os.PathLike[str]) -> Iterator[None]:
    """Serialise read-modify-write of the records (parallel tool calls of one agent run hooks at once)."""
    import fcntl

    folder = _dir(root)
    os.makedirs(folder, exist_ok=True)
    with open_lock(os.path.join(folder, ".lock")) as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _claim_path(root: str | os.PathLike[str], sess_id: str) -> str:
    if not _SESS_RE.match(sess_id):
        raise ValueError(f"invalid session ID {sess_id!r}")
    return _dir(root, f"{sess_id}.json")


def _iso(moment: datetime) -> str:
    return moment.replace(microsecond=0).isoformat()


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


# ---------------------------------------------------------------------------------------------
# Binding
# ---------------------------------------------------------------------------------------------
def agent_session_for_open(explicit: str | None, environ: Mapping[str, str]) -> str | None:
    """The agent session a new claim binds: `--agent-session`, else the agent's variable
    (`$CLAUDE_CODE_SESSION_ID`, `$GEMINI_SESSION_ID`), else None.

    An empty value means none; a malformed one is refused by the open (exit 65).
    """
    if explicit is not None:
        return explicit.strip() or None
    return env_agent_session(environ) or None


def record_binding(root: str | os.PathLike[str], sess_id: str, agent_session: str, now: datetime,
                   process: str | None = None) -> None:
    """Remember that `agent_session` holds claim `sess_id` (called when the claim is opened or carried over).

    The first binding of an agent session also records its agent process (`process`, else the one this process
    runs under: `agent_process`): a hand-over of the session later counts only from that process. A malformed
    session or agent session ID raises ValueError.
    """
    if process is None:
        from brain_tui.core.sessions.agent_process import agent_process

        process = agent_process()
    with _locked(root):
        _bind_unlocked(root, sess_id, agent_session, now, process)


def _bind_unlocked(root: str | os.PathLike[str], sess_id: str, agent_session: str, now: datetime,
                   process: str = "") -> None:
    path = _session_path(root, agent_session)
    entry = _read(path) or {}
    ids = [s for s in entry.get("sess_ids", []) if isinstance(s, str) and s != sess_id]
    known = entry.get("process") if isinstance(entry.get("process"), str) else ""
    doc: dict[str, Any] = {"agent_session": agent_session, "sess_ids": [*ids, sess_id], "updated_at": _iso(now)}
    if known or process:
        doc["process"] = known or process
    _write(path, doc)
    record_path = _claim_path(root, sess_id)
    record = _read(record_path) or {"sess_id": sess_id, "state": "working", "touched": []}
    history = [a for a in record.get("agent_sessions", []) if isinstance(a, str) and a != agent_session]
    record.update({"agent_session": agent_session, "agent_sessions": [*history, agent_session][-20:],
                   "last_activity": record.get("last_activity") or _iso(now)})
    if record.get("state") not in STATES or record.get("state") == "ended":
        record["state"] = "working"
    _write(record_path, record)


# ---------------------------------------------------------------------------------------------
# Liveness writers (the hooks)
# ---------------------------------------------------------------------------------------------
def record_activity(root: str | os.PathLike[str], sess_id: str, agent_session: str | None, now: datetime,
                    tool: str | None = None, touched: Sequence[str] = (),
                    transcript: Transcript | None = None) -> None:
    """A tool event of the bound session: state `working` (a wait for input is over), last activity and tool,
    touched files added, the transcript the event gave (`Transcript`) remembered."""
    with _locked(root):
        path = _claim_path(root, sess_id)
        record = _read(path) or {"sess_id": sess_id}
        files = [f for f in record.get("touched", []) if isinstance(f, str)]
        for name in touched:
            if name in files:
                files.remove(name)
            files.append(name)
        record.update({"sess_id": sess_id, "state": "working", "last_activity": _iso(now),
                       "touched": files[-MAX_TOUCHED:]})
        if tool:
            record["last_tool"] = tool[:64]
        _input_over(record, agent_session)
        _remember_transcript(record, transcript)
        _write(path, record)


def record_state(root: str | os.PathLike[str], sess_id: str, agent_session: str | None, state: str,
                 now: datetime, transcript: Transcript | None = None, kind: str | None = None,
                 message: str | None = None) -> None:
    """Record `needs_input`, `idle`, `ended` (or `working`) for the cockpit; an unknown state raises ValueError.

    For `needs_input`, `kind` and `message` say why (the client's notification type and message, cut
    to `MAX_INPUT_KIND` / `MAX_INPUT_MESSAGE` characters, kept as given: readers make them inert);
    any other state forgets them.
    """
    if state not in STATES:
        raise ValueError(f"unknown state {state!r}")
    with _locked(root):
        path = _claim_path(root, sess_id)
        record = _read(path) or {"sess_id": sess_id, "touched": []}
        record.update({"sess_id": sess_id, "state": state, "last_activity": _iso(now)})
        _input_over(record, agent_session)
        if state == "needs_input" and kind:
            record["input_kind"] = kind[:MAX_INPUT_KIND]
        if state == "needs_input" and message:
            record["input_message"] = message[:MAX_INPUT_MESSAGE]
        _remember_transcript(record, transcript)
        _write(path, record)


def note_event(root: str | os.PathLike[str], sess_id: str, agent_session: str | None, now: datetime,
               transcript: Transcript | None, *, working: bool = False) -> None:
    """Any other hook event of the bound session: its transcript remembered; with `working` (a prompt was
    submitted: a new turn starts) the state becomes `working` and a wait for input is over.

    Without a transcript and without `working` nothing is written.
    """
    if transcript is None and not working:
        return
    with _locked(root):
        path = _claim_path(root, sess_id)
        record = _read(path) or {"sess_id": sess_id, "touched": []}
        record["sess_id"] = sess_id
        if working:
            record.update({"state": "working", "last_activity": _iso(now)})
            _input_over(record, agent_session)
        _remember_transcript(record, transcript)
        _write(path, record)


@record
class Transcript:
    """The transcript file a hook event named, and the client that writes it.

    Attributes:
        path: an absolute path that was a regular file (not a symlink) when the event came (`transcript_of`).
        agent: `claude`, `codex` or `gemini`.
    """

    path: str
    agent: str


def transcript_of(value: object, agent: str) -> Transcript | None:
    """The event's `transcript_path` when it names a regular file (a symlink, a folder, a missing file, a
    relative path, a NUL or an over-long value: None). The path is kept as given, never resolved further."""
    if not isinstance(value, str) or not value or len(value) > MAX_TRANSCRIPT_PATH or "\0" in value:
        return None
    if not os.path.isabs(value):
        return None
    path = value
    try:
        info = os.lstat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return Transcript(os.path.normpath(path), agent if agent in ("claude", "codex", "gemini") else "claude")


def _input_over(record: dict[str, Any], agent_session: str | None) -> None:
    """A wait for input is over: its kind and message are forgotten; the agent session is noted when known."""
    if agent_session:
        record["agent_session"] = agent_session
    record.pop("input_kind", None)
    record.pop("input_message", None)


def _remember_transcript(record: dict[str, Any], transcript: Transcript | None) -> None:
    if transcript is not None:
        record["transcript"] = transcript.path
        record["agent"] = transcript.agent


def unseen(root: str | os.PathLike[str], sess_id: str, keys: Sequence[str]) -> set[str]:
    """Which of `keys` were never brought to the claim's session before; they are marked seen now.

    Each item (a signal, a gate decision, a TTL warning) reaches the agent once, never again.
    """
    if not keys:
        return set()
    with _locked(root):
        path = _claim_path(root, sess_id)
        record = _read(path) or {"sess_id": sess_id, "touched": []}
        seen = [k for k in record.get("seen", []) if isinstance(k, str)]
        known = set(seen)
        fresh = [k for k in dict.fromkeys(keys) if k not in known]
        if fresh:
            record["seen"] = [*seen, *fresh][-MAX_SEEN:]
            _write(path, record)
        return set(fresh)


def not_seen(root: str | os.PathLike[str], sess_id: str, keys: Sequence[str]) -> list[str]:
    """Which of `keys` were never brought to the claim's session, in order; nothing is marked (`unseen` marks)."""
    record = _read(_claim_path(root, sess_id)) or {}
    known = {k for k in record.get("seen", []) if isinstance(k, str)}
    return [k for k in dict.fromkeys(keys) if k not in known]


def first_time(root: str | os.PathLike[str], sess_id: str, key: str) -> bool:
    """True the first time `key` is asked for this claim (then False for ever)."""
    return bool(unseen(root, sess_id, [key]))


# ---------------------------------------------------------------------------------------------
# Reader (the cockpit)
# ---------------------------------------------------------------------------------------------
def read_liveness(root: str | os.PathLike[str], now: datetime | None = None) -> dict[str, Liveness]:
    """Every claim's liveness record, by session ID; with `now` (the brain's clock) a `working` session quiet
    for `IDLE_AFTER` reads as `idle`, without it states read as recorded.
    """
    folder = _dir(root)
    out: dict[str, Liveness] = {}
    try:
        names = os.listdir(folder)
    except OSError:
        return out
    for name in sorted(names):
        if not name.startswith("sess-") or not name.endswith(".json"):
            continue
        record = _read(os.path.join(folder, name))
        if record is None:
            continue
        sess_id = record.get("sess_id")
        if not isinstance(sess_id, str) or f"{sess_id}.json" != name:
            continue
        state = record.get("state") if record.get("state") in STATES else "idle"
        last = _parse_time(record.get("last_activity"))
        if now is not None and state == "working" and (last is None or now - last >= IDLE_AFTER):
            state = "idle"
        agent = record.get("agent_session")
        tool = record.get("last_tool")
        touched = tuple(f for f in record.get("touched", []) if isinstance(f, str)) \
            if isinstance(record.get("touched"), list) else ()
        out[sess_id] = Liveness(
            sess_id=sess_id,
            agent_session=agent if isinstance(agent, str) else None,
            state=str(state),
            last_activity=last,
            last_tool=tool if isinstance(tool, str) else None,
            touched=touched,
            transcript=_text(record, "transcript"),
            agent=_text(record, "agent"),
            input_kind=_text(record, "input_kind") if state == "needs_input" else None,
            input_message=_text(record, "input_message") if state == "needs_input" else None,
        )
    return out


def _text(record: Mapping[str, Any], key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) and value else None


class Agents:
    """The facade's view of agent sessions (``brain.agents``); `now` is the brain's clock (a callable)."""

    def __init__(self, root: str | os.PathLike[str], now: Any) -> None:
        self.root = os.fspath(root)
        self._now = now

    def liveness(self) -> dict[str, Liveness]:
        """Every bound claim's liveness, by session ID (see `read_liveness`)."""
        return read_liveness(self.root, self._now())

    def require_writable(self) -> None:
        """Raise, before a claim is opened, what recording its binding would raise (InvalidData, 65: a lock file that
        is no regular file; OSError: a folder that cannot be written): a claim is never committed without its
        binding. Nothing is made: a missing folder or lock file is made by the binding itself."""
        check_lock(os.path.join(_dir(self.root), ".lock"))

    def intend(self, sess_id: str, agent_session: str | None, client: str, *, opened_at: str, instance: str,
               in_git: bool = True, environ: Mapping[str, str] | None = None) -> None:
        """Before the commit of `sess_id`: record the binding its open makes after it (`core.sessions.opening`):
        to `agent_session`, and for the `bsi mcp` client `client` ("" none).

        The agent process is recorded with the agent session only when this process runs inside that agent session
        (its ID is the agent's variable in `environ`, default this process's environment); a binding made by hand
        (`--agent-session` from elsewhere) leaves it to the session's first hook event.
        """
        from brain_tui.core.sessions import opening

        process = ""
        if agent_session:
            env = os.environ if environ is None else environ
            if env_agent_session(env) == agent_session:
                from brain_tui.core.sessions.agent_process import agent_process

                process = agent_process()
        opening.intend(self.root, sess_id, self._now(), agent_session=agent_session, process=process,
                       client=client, opened_at=opened_at, instance=instance, in_git=in_git)

    def settle_open(self, intended: Sequence[str], committed: str | None) -> None:
        """After an open (`committed`: the claim it committed, None when it failed): bind what `intend` recorded
        for the claims it committed, drop the rest."""
        from brain_tui.core.sessions import opening

        for sess_id in dict.fromkeys(intended):
            if sess_id == committed:
                opening.settle_one(self.root, sess_id, self._now())
            else:
                opening.settle_if_held(self.root, sess_id, self._now())

    def bound_claims(self, agent_session: str) -> list[str]:
        """The claims this agent session holds on this machine, oldest first."""
        return bound_claims(self.root, agent_session)
