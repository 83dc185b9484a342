"""`session-start` and `user-prompt-submit`: what a session is told about its claim (SPEC 20.2).

Facts, short, never orders; brain text goes through `fact()` (inert, cut short).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brain_tui.core.paths.text_safety import inert_line as fact
from brain_tui.core.paths.text_safety import inert_quoted as quoted
from brain_tui.core.records.statuses import SignalState, Status
from brain_tui.core.records.views import stale_notice
from brain_tui.core.rules.authority import judged
from brain_tui.core.rules.effective import effective_status
from brain_tui.core.sessions import agents
from brain_tui.hooks import wire
from brain_tui.hooks.events import (
    Answer,
    HookContext,
    bound_claims,
    close_command,
    genuine_event,
    launcher_claim,
    transcript,
)

if TYPE_CHECKING:
    from brain_tui.core.records.model import BrainSnapshot, Claim, Signal

#: `additionalContext` is at most this long (SPEC 20.2).
CONTEXT_LIMIT = 10_000
#: At most this many pending signals are listed at `session-start`; the others come at the first prompt.
MAX_SIGNALS_AT_START = 20
#: What a context says of the items it left for later.
MORE_SIGNALS = "- … {} more pending signal(s), brought at the first prompt (`bsi signal list --pending`)"
MORE_ITEMS = "- … {} more, brought at the next prompt"
#: A TTL under this is brought to the session's attention.
TTL_WARNING_S = 15 * 60


def session_start(ctx: HookContext) -> Answer:
    """The brain state, the session's claim and its pending signals as `additionalContext`; `BSI_SESSION` exported."""
    from brain_tui.core.sessions.agent_process import agent_process
    from brain_tui.core.sessions.handover import note_process, start_session

    if ctx.root is None:
        return Answer()
    brain = ctx.brain
    now = brain.now()
    facts: list[str] = []
    session = ctx.agent_session
    held, why = start_session(ctx.root, session, wire.text_field(ctx.event, "source"),
                              list(reversed(bound_claims(ctx))), now, cwd=ctx.cwd,
                              launched=launcher_claim(ctx.environ) is not None)
    bound = list(reversed(held))
    note_process(ctx.root, session, agent_process())  # this process is this session's agent from now on
    if bound and genuine_event(ctx):
        agents.note_event(ctx.root, bound[0], session, now, transcript(ctx))
    if why:
        facts.append(f"BSI: {fact(why, 400)}.")
    if bound and not genuine_event(ctx):
        facts.append(f"BSI: this event names agent session {session} but does not come from its agent process: "
                     "its claims are not this session's.")
        bound = []
    snapshot = judged(brain.snapshot())  # a clock behind tells no expired claim it is open
    facts.append(brain_state(ctx, snapshot))
    stale = stale_notice(snapshot)
    if stale:
        facts.append(f"BSI: {stale}")
    claim: Claim | None = None
    told: list[tuple[str, str]] = []
    if bound:
        claim = snapshot.claim(bound[0])
        facts.extend(claim_facts(claim, snapshot) if claim else [f"BSI: claim {bound[0]} not found in the brain."])
        env_file = ctx.environ.get("CLAUDE_ENV_FILE", "")
        if env_file and claim is not None and not claim.is_terminal:
            facts.extend(export_session(env_file, claim.sess_id))
        told = [signal_item(sig) for sig in pending_signals(snapshot, bound[0])]
        agents.record_state(ctx.root, bound[0], session, "working", now)
    else:
        facts.append("BSI: this session holds no claim. Writes into a claimed scope are refused; "
                     "`bsi claim open --scope S --story TEXT` declares one.")
    shown, text = fit_items("\n".join(facts), told, MORE_SIGNALS, most=MAX_SIGNALS_AT_START)
    if claim is not None:  # a signal this context showed whole is not brought in again (SPEC 20.2)
        agents.unseen(ctx.root, claim.sess_id, shown)
    return Answer(0, wire.dumps(wire.context("SessionStart", text)))


def export_session(env_file: str, sess_id: str) -> list[str]:
    """Append `export BSI_SESSION=<sess_id>` to the agent's `CLAUDE_ENV_FILE`; the facts to tell when it cannot
    be written (the context still comes: the agent's shell only lacks the variable)."""
    try:
        with open(env_file, "a", encoding="utf-8") as handle:
            handle.write(f"export BSI_SESSION={sess_id}\n")
    except OSError as exc:
        why = fact(exc.strerror or type(exc).__name__, 80)
        return [f"BSI: CLAUDE_ENV_FILE {fact(env_file, 200)} could not be written ({why}): "
                f"`export BSI_SESSION={sess_id}` did not reach the shell; name the claim in `bsi` commands."]
    return []


def brain_state(ctx: HookContext, snapshot: BrainSnapshot) -> str:
    """A short brain state (SPEC 16, the part a session needs): where, how many claims, what waits."""
    from brain_tui.core.sync import gitops

    counts: dict[str, int] = {}
    for claim in snapshot.claims:  # as the rules read them: a claim past its TTL is stale, marked or not
        status = effective_status(claim, snapshot.now)
        counts[status] = counts.get(status, 0) + 1
    active = ", ".join(f"{counts[s]} {s}" for s in ("open", "waiting_human", "paused", "stale") if counts.get(s))
    try:
        head = gitops.head_summary(ctx.brain.root)
    except gitops.GitError as exc:  # git missing or too slow: the state is still worth giving
        version = f"unknown: {fact(str(exc), 80)}"
    else:
        version = fact(head, 80) if head else _no_version(ctx)
    pending = sum(1 for s in snapshot.signals if s.state == SignalState.PENDING)
    return (f"BSI brain {fact(ctx.brain.brain_name, 60)} at {fact(ctx.brain.root, 200)} "
            f"(version {version}): claims {active or 'none blocking'}; {pending} signal{'' if pending == 1 else 's'} "
            "pending.")


def _no_version(ctx: HookContext) -> str:
    """Why `git log` gave no version: no repository, no commit yet, or git taking no commit now (it cannot run,
    HEAD names no branch), in the words a refused write uses (`git_state.stall`); asked only on this rare way."""
    if not ctx.brain.is_git():
        return "not a git repository"
    from brain_tui.core.sync import gitops
    from brain_tui.core.sync.git_state import stall

    try:
        stalled = stall(ctx.brain.root, commits=True, timeout=2.0)
    except gitops.GitError as exc:  # git missing or too slow
        return f"unknown: {fact(str(exc), 80)}"
    return f"unknown: {fact(stalled.state, 200)}" if stalled is not None else "no commit yet"


def claim_facts(claim: Claim, snapshot: BrainSnapshot) -> list[str]:
    """The claim's facts: ID, scope, status, TTL left, tier requirement, parent, triggers."""
    from brain_tui.core.records.model import TIER_NAMES, tier_of

    tier = tier_of(claim)
    status = effective_status(claim, snapshot.now)  # a claim past its TTL is stale, marked or not (SPEC 6.3)
    left = ""
    if claim.expires_at is not None:
        minutes = int((claim.expires_at - snapshot.now).total_seconds() // 60)
        left = f"; TTL left {minutes} min" if minutes >= 0 else f"; TTL over by {-minutes} min"
    lines = [
        f"BSI claim {claim.sess_id}: status {fact(status, 20)}; scope {fact(claim.scope_text, 300)}{left}; "
        f"tier {tier} ({TIER_NAMES[tier]}): close with `{close_command(claim)}`.",
    ]
    if claim.parent:
        lines.append(f"Parent claim: {fact(claim.parent, 80)}.")
    triggers = [f"{key}: {quoted(value, 120)}" for key, value in claim.exit_triggers.items()]
    if triggers:
        lines.append("Exit triggers: " + "; ".join(triggers) + ".")
    if claim.story:
        lines.append(f"Story (as written by its author): {quoted(claim.story, 200)}.")
    return lines


def pending_signals(snapshot: BrainSnapshot, sess_id: str) -> list[Any]:
    """The pending signals addressed to this claim, oldest first."""
    return [s for s in snapshot.signals if s.state == SignalState.PENDING and s.to == sess_id]


def signal_item(sig: Signal) -> tuple[str, str]:
    """A pending signal as (key, line): how both hooks show it, and what marks it brought in."""
    return (f"sig:{sig.sig_id}",
            f"- signal {sig.sig_id} {fact(sig.type, 24)} from {fact(sig.sender, 60)}: {quoted(sig.payload, 200)}")


def gate_items(claim: Claim) -> list[tuple[str, str]]:
    """The claim's gate decisions as (key, line) items: what `user_prompt_submit` brings in once."""
    items = []
    for number, entry in enumerate(claim.gate_history):
        if entry.event.upper() not in ("HUMAN_GATE", "REQUEST"):
            line = (f"- gate {fact(entry.event, 20)} by {fact(entry.by, 60)} at "
                    f"{fact(entry.ts, 30)}: {quoted(entry.message, 200)}")
            items.append((f"gate:{number}", line))
    return items


def user_prompt_submit(ctx: HookContext) -> Answer:
    """What is new for the session since the last prompt, each item brought in once."""
    if ctx.root is None:
        return Answer()
    bound = bound_claims(ctx)
    if not bound or not genuine_event(ctx):  # another process never uses up what the session is told once
        return Answer()
    brain = ctx.brain
    agents.note_event(ctx.root, bound[0], ctx.agent_session, brain.now(), transcript(ctx), working=True)
    snapshot = judged(brain.snapshot())  # a clock behind tells no expired claim it is open
    claim = snapshot.claim(bound[0])
    if claim is None:
        return Answer()
    items: list[tuple[str, str]] = []
    items.extend(signal_item(sig) for sig in pending_signals(snapshot, claim.sess_id))
    items.extend(gate_items(claim))

    status = effective_status(claim, snapshot.now)
    if claim.expires_at is not None and status == Status.OPEN:
        left = (claim.expires_at - snapshot.now).total_seconds()
        if 0 <= left < TTL_WARNING_S:
            items.append((f"ttl:{claim.expires_at.isoformat()}",
                          f"- TTL of {claim.sess_id}: {int(left // 60)} min left (`bsi claim renew {claim.sess_id}`)"))
    fresh = set(agents.not_seen(ctx.root, claim.sess_id, [key for key, _ in items]))
    new = [(key, line) for key, line in items if key in fresh]
    if not new:
        return Answer()
    shown, text = fit_items(f"BSI: new for claim {claim.sess_id} (status {fact(status, 20)}):", new, MORE_ITEMS)
    agents.unseen(ctx.root, claim.sess_id, shown)  # only what this context showed whole is brought in
    return Answer(0, wire.dumps(wire.context("UserPromptSubmit", text)))


def fit_items(header: str, items: list[tuple[str, str]], more: str, most: int | None = None) -> tuple[list[str], str]:
    """`header` and as many of `items` (key, line) as fit whole in `CONTEXT_LIMIT` (and at most `most`), the
    others counted by `more` (a template of one `{}`): the keys of the lines the text holds whole, and the text.
    When none fits yet, one item is listed, cut short if it alone is too long (not counted as shown then); a header
    too long is cut at the limit."""
    room = CONTEXT_LIMIT - len(more.format(len(items))) - 1
    lines = [header]
    size = len(header)
    for _key, line in items[:most]:
        if size + 1 + len(line) > room and len(lines) > 1:
            break
        lines.append(line)
        size += 1 + len(line)
    listed = items[: len(lines) - 1]
    if len(listed) < len(items):
        lines.append(more.format(len(items) - len(listed)))
    text = "\n".join(lines)
    if len(text) > CONTEXT_LIMIT:
        text = text[: CONTEXT_LIMIT - 1] + "…"
    # only a line the text holds whole counts as shown: one cut at the limit comes again
    return [key for key, line in listed if f"\n{line}\n" in f"\n{text}\n"], text
