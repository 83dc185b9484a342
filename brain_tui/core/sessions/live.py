"""Live sessions (SPEC 20.4): what the cockpit shows of each claim's agent, and beside each stale claim.

For a claim bound to an agent session (the hooks' records, `core.agents`) or launched from
this machine (`core.launch`): the session's state, its last tool activity, and the last
commit in the brain by it (`core.audit.last_commits_by`). Everything here is read-only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.record import record
from brain_tui.core.records.model import BrainSnapshot
from brain_tui.core.records.statuses import BLOCKING_STATUSES

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:  # a read without bound agents loads neither the transcripts' nor git's readers (start-up)
    from typing import Any

    from brain_tui.core.brain import Brain
    from brain_tui.core.sessions.agents import Liveness
    from brain_tui.core.sessions.launch import LaunchRecord
    from brain_tui.core.sessions.transcript import Peek, Runway
    from brain_tui.core.sync.audit import LogEntry


@record
class LiveSession(JsonShaped):
    """The evidence about one claim's agent.

    Attributes:
        sess_id: the claim.
        liveness: what the hooks last saw (None: no bound agent session has reported).
        last_commit: the newest commit in the brain by the session (None: none found).
        launch: its running launch on this machine (None: not launched here, or ended).
        peek: what its agent last said and did and its context runway, read from the transcript its
            hooks named (`core.transcript`; None: no transcript known or readable).
    """

    sess_id: str
    liveness: Liveness | None
    last_commit: LogEntry | None
    launch: LaunchRecord | None
    peek: Peek | None = None

    @property
    def runway(self) -> Runway | None:
        """The context runway of its agent session, or None."""
        return self.peek.runway if self.peek is not None else None

    @property
    def state(self) -> str:
        """``working``, ``needs_input``, ``idle``, ``ended`` — or ``launched`` when only a launch is known."""
        if self.liveness is not None:
            return self.liveness.state
        return "launched" if self.launch is not None else "unknown"

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: the fields, with `state` after `sess_id`."""
        return {"sess_id": self.sess_id, "state": self.state, **super().as_dict()}


def live_sessions(root: Path, snapshot: BrainSnapshot, liveness: Mapping[str, Liveness],
                  launches: Sequence[LaunchRecord], window: int | None = None) -> dict[str, LiveSession]:
    """The live sessions of the non-terminal claims that have a bound agent or a running launch.

    `root` is a git work tree for the last commits (none found elsewhere); `window`: the configured context
    window (`context_window`), None for the model's own.
    """
    launched = {r.sess_id: r for r in launches}
    claims = [c for c in snapshot.claims
              if c.status in BLOCKING_STATUSES and (c.sess_id in liveness or c.sess_id in launched)]
    if not claims:
        return {}
    from brain_tui.core.sync.audit import last_commits_by

    touched = {c.sess_id: liveness[c.sess_id].touched for c in claims if c.sess_id in liveness}
    commits = last_commits_by(root, claims, touched)
    return {c.sess_id: LiveSession(c.sess_id, liveness.get(c.sess_id), commits.get(c.sess_id),
                                   launched.get(c.sess_id), peek_of(liveness.get(c.sess_id), window))
            for c in claims}


def context_window(raw: Mapping[str, Any]) -> int | None:
    """``agents.context_window`` from brain-compose.yml (tokens, a positive integer), else None.

    A figure past any real count (`transcript.MAX_TOKENS`, the bound a transcript's own figures get) is no
    window: the model's own counts, as for a negative one (a huge one made the forecast overflow).
    """
    section = raw.get("agents")
    value = section.get("context_window") if isinstance(section, Mapping) else None
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return None
    from brain_tui.core.sessions.transcript import MAX_TOKENS  # only when one is set: a read's start-up

    return value if value <= MAX_TOKENS else None


def peek_of(live: Liveness | None, window: int | None = None) -> Peek | None:
    """The peek of a bound session's transcript (bounded: `transcript.TAIL_BYTES` from its end), or None."""
    if live is None or live.transcript is None:
        return None
    from brain_tui.core.sessions.transcript import read_peek

    return read_peek(live.transcript, window)


def peek_claim(sess_id: str, liveness: Mapping[str, Liveness], config: Mapping[str, Any]) -> Peek | None:
    """The peek of claim `sess_id`'s bound agent session (`peek_of`, with the configured `context_window`).

    Raises:
        InvalidData: a malformed session ID (exit 65).
        NotFound: no bound agent session of this claim has reported on this machine (exit 66).
    """
    from brain_tui.core.errors import InvalidData, NotFound
    from brain_tui.core.ids import valid_session_id

    if not valid_session_id(sess_id):
        raise InvalidData(f"invalid session ID {sess_id!r}")
    found = liveness.get(sess_id)
    if found is None:
        raise NotFound(f"claim {sess_id} has no bound agent session on this machine")
    return peek_of(found, context_window(config))


def runways(liveness: Mapping[str, Liveness], window: int | None = None) -> dict[str, Runway]:
    """The context runway of each bound, not ended session whose transcript records usage, by claim (an ended
    session's runway is no longer a risk)."""
    found: dict[str, Runway] = {}
    for sess_id, live in liveness.items():
        if live.state == "ended":
            continue
        peek = peek_of(live, window)
        if peek is not None and peek.runway is not None:
            found[sess_id] = peek.runway
    return found


def runways_of(sessions: Mapping[str, LiveSession]) -> dict[str, Runway]:
    """The runways of live sessions already read (`live_sessions`, in a worker), for `Brain.attention`: an ended
    session's is left out, as `runways` does."""
    return {sess_id: entry.runway for sess_id, entry in sessions.items()
            if entry.runway is not None and entry.state != "ended"}


def live_sessions_of(brain: Brain, snapshot: BrainSnapshot | None) -> dict[str, LiveSession]:
    """`Brain.live_sessions`: the blocking claims read now unless `snapshot` is given (then no store access)."""
    from brain_tui.core.sessions import launch as launching

    if snapshot is None:
        snapshot = brain.snapshot(only_statuses=BLOCKING_STATUSES)
    return live_sessions(brain.root, snapshot, brain.agents.liveness(), launching.running(brain.root),
                         context_window(brain.config.raw))
