"""`Brain.open_claim`'s write: an open that binds its claim (to an agent session, or to the `bsi mcp` client that
opened it), or one that binds nothing; either names the claim a synced open kept pending (`name_kept`).

The binding is written before the commit and made after it (`core.sessions.opening`), so that a kill between the
two leaves it for the session's next hook: never a claim committed that its own session cannot find (SPEC 20.1, 22).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brain_tui.core.errors import RemoteUnreachable
from brain_tui.core.paths.layout import CLAIMS_DIR

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
    except BaseException as exc:
        agents.settle_open(intended, None)
        if isinstance(exc, RemoteUnreachable):
            name_kept(brain, exc, intended)
        raise
    agents.settle_open(intended, sess_id)
    return sess_id


def open_plain(brain: Brain, req: OpenRequest, acting: Actor | None) -> str:
    """Open `req` bound to no session nor client; its ID (a refusal that kept it names it: `name_kept`)."""
    from brain_tui.core.rules import claims

    decided: list[str] = []

    def decide(cs: ChangeSet) -> str:
        decided.append(claims.open_claim(cs, req, actor=acting))
        return decided[-1]

    try:
        return brain.mutate(decide)
    except RemoteUnreachable as exc:
        name_kept(brain, exc, decided)
        raise


def name_kept(brain: Brain, exc: RemoteUnreachable, decided: list[str]) -> None:
    """Name in `exc` the claim a synced open kept: its push got no answer and the remote could not say whether it
    landed, so the commit is kept here, pending (`remote.write_through`, `kept`). The claim is in force and the
    opener's: an answer that did not name it reads as "nothing opened", and an open of the same scope again is then
    refused as a conflict with it. `decided`: the IDs the open decided, the last one committed.

    The payload gets ``sess_id`` and ``kept: true``, the message what to do; a refusal that kept nothing is left as
    it is.
    """
    if not (exc.kept and decided and (brain.root / CLAIMS_DIR / f"{decided[-1]}.yml").is_file()):
        return
    sess_id = decided[-1]
    exc.payload = {**exc.payload, "sess_id": sess_id, "kept": True}
    exc.message = (f"{exc.message}: the claim {sess_id} is opened here and yours (do not open it again); "
                   "others see it once it is pushed")
    exc.args = (exc.message,)
