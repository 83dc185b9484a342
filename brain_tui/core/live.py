"""Live sessions (SPEC 20.4): what the cockpit shows of each claim's agent, and beside each stale claim.

For a claim bound to an agent session (the hooks' records, `core.agents`) or launched from
this machine (`core.launch`): the session's state, its last tool activity, and the last
commit in the brain by it (`core.audit.last_commits_by`). Everything here is read-only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain_tui.core.agents import Liveness
from brain_tui.core.audit import LogEntry, last_commits_by
from brain_tui.core.launch import LaunchRecord
from brain_tui.core.model import BrainSnapshot

#: Claims whose liveness is worth a look: not terminal (a closed claim's session no longer matters).
SHOWN_STATUSES = frozenset({"open", "waiting_human", "paused", "stale"})


@dataclass(frozen=True)
class LiveSession:
    """The evidence about one claim's agent.

    Attributes:
        sess_id: the claim.
        liveness: what the hooks last saw (None: no bound agent session has reported).
        last_commit: the newest commit in the brain by the session (None: none found).
        launch: its running launch on this machine (None: not launched here, or ended).
    """

    sess_id: str
    liveness: Liveness | None
    last_commit: LogEntry | None
    launch: LaunchRecord | None

    @property
    def state(self) -> str:
        """``working``, ``needs_input``, ``idle``, ``ended`` — or ``launched`` when only a launch is known."""
        if self.liveness is not None:
            return self.liveness.state
        return "launched" if self.launch is not None else "unknown"

    def as_dict(self) -> dict[str, Any]:
        """JSON shape."""
        return {
            "sess_id": self.sess_id,
            "state": self.state,
            "liveness": self.liveness.as_dict() if self.liveness else None,
            "last_commit": self.last_commit.as_dict() if self.last_commit else None,
            "launch": self.launch.as_dict() if self.launch else None,
        }


def live_sessions(root: Path, snapshot: BrainSnapshot, liveness: Mapping[str, Liveness],
                  launches: Sequence[LaunchRecord]) -> dict[str, LiveSession]:
    """The live sessions of the non-terminal claims that have a bound agent or a running launch.

    Args:
        root: the brain (a git work tree, for the last commits; none found elsewhere).
        snapshot: the brain now.
        liveness: `brain.agents.liveness()`.
        launches: the running launches (`brain.launches.running()`).
    """
    launched = {r.sess_id: r for r in launches}
    claims = [c for c in snapshot.claims
              if c.status in SHOWN_STATUSES and (c.sess_id in liveness or c.sess_id in launched)]
    if not claims:
        return {}
    touched = {c.sess_id: liveness[c.sess_id].touched for c in claims if c.sess_id in liveness}
    commits = last_commits_by(root, claims, touched)
    return {c.sess_id: LiveSession(c.sess_id, liveness.get(c.sess_id), commits.get(c.sess_id),
                                   launched.get(c.sess_id)) for c in claims}
