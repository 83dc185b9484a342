"""`Brain.open_claim` for an open that binds its claim: to an agent session, or to the `bsi mcp` client that opened it.

The binding is written before the commit and made after it (`core.sessions.opening`), so that a kill between the
two leaves it for the session's next hook: never a claim committed that its own session cannot find (SPEC 20.1, 22).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brain_tui.core.brain import Brain
    from brain_tui.core.records.changes import ChangeSet
    from brain_tui.core.rules.authority import Actor
    from brain_tui.core.rules.claims import OpenRequest


def open_bound(brain: Brain, req: OpenRequest, acting: Actor | None, mcp_client: str) -> str:
    """Open `req` (its `agent_session` set, or `mcp_client` not ""), its binding recorded before the commit; its ID.

    A spoiled record folder refuses before anything is decided (`Agents.require_writable`); a binding that cannot
    be written commits nothing. After the open, what it committed is bound and the rest of its records dropped
    (`Agents.settle_open`: a synced open decided again under a new ID wrote one for each).
    """
    from brain_tui.core.rules import claims

    agents = brain.agents
    agents.require_writable()
    intended: list[str] = []

    def decide(cs: ChangeSet) -> str:
        sess_id = claims.open_claim(cs, req, actor=acting)
        agents.intend(sess_id, req.agent_session, mcp_client, opened_at=cs.ts(), instance=req.instance,
                      in_git=brain.commit_enabled and brain.is_git())
        intended.append(sess_id)
        return sess_id

    try:
        sess_id = brain.mutate(decide)
    except BaseException:
        agents.settle_open(intended, None)
        raise
    agents.settle_open(intended, sess_id)
    return sess_id
