"""`brain.launches`: starting agents for claims (SPEC 20.5) and the claims HANDOFF signals ask for.

A typed sub-object of the `Brain` facade, like `brain.gates` (core/facade.py): it holds no
rule of its own; the rules are in core/sessions/launch.py (argv, settings, records), core/sessions/tmux.py,
core/rules/handoff.py and core/rules/authority.py (an agent launches within its own tree only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brain_tui.core.record import replace
from brain_tui.core.rules import authority as who_acts
from brain_tui.core.rules import claims, handoff, signals
from brain_tui.core.sessions import launch as launching
from brain_tui.core.sessions import pane_keys
from brain_tui.core.sessions import tmux as tmux_launcher

if TYPE_CHECKING:
    from brain_tui.core.brain import Brain
    from brain_tui.core.records.changes import ChangeSet
    from brain_tui.core.records.model import BrainSnapshot
    from brain_tui.core.rules.authority import Actor
    from brain_tui.core.rules.claims import OpenRequest


class Launches:
    """Agents launched for open claims, and the claims HANDOFF signals ask for."""

    def __init__(self, brain: Brain) -> None:
        self._brain = brain

    def plan(self, sess_id: str, *, tmux: bool | None = None) -> launching.LaunchPlan:
        """What `start` would start for `sess_id` (the argv, env, window), starting nothing."""
        brain = self._brain
        config = brain.config_file.current()  # as the file is now (`L` after an edit)
        settings = launching.launch_settings(config.raw, config.problem)
        return launching.plan_launch(brain.snapshot(), settings, brain.root, sess_id, tmux=tmux,
                                     liveness=brain.agents.liveness())

    def start(self, sess_id: str, *, tmux: bool | None = None) -> launching.LaunchRecord:
        """Start an agent for an open claim: a new tmux window, or (no tmux) this very process.

        Under the writer lock, so two launchers never both take the last of the `MAX_RUNNING` slots.
        Without tmux the current process becomes the agent's launch root and this never returns. An agent: its own
        tree only.
        """
        brain = self._brain
        with brain.locked():
            who_acts.check_owner(brain.snapshot(), who_acts.acting_in(brain.root), sess_id, "launch an agent for",
                                 True)
            plan = self.plan(sess_id, tmux=tmux)
            started_at = brain.now().isoformat(timespec="seconds")
            if plan.tmux:
                # the window's launch root waits for its argv, handed over only once the launch is recorded
                handed = tmux_launcher.handover_file(plan)
                record = tmux_launcher.start_tmux(plan, brain_name=brain.brain_name, started_at=started_at,
                                                  handed=handed)
                launching.write_record(brain.root, record)
                tmux_launcher.hand_argv(plan, handed)
                return record
        launching.exec_here(plan, brain.root, started_at)

    def running(self) -> list[launching.LaunchRecord]:
        """The launched agents still running from this brain on this machine."""
        return launching.running(self._brain.root)

    def find_running(self, sess_id: str) -> launching.LaunchRecord:
        """The running launch of `sess_id` on this machine. Raises InvalidData (65) for a malformed ID, NotFound (66)
        when no launched agent of it runs here."""
        return launching.find_running(self._brain.root, sess_id)

    def check_settings(self) -> None:
        """Raise NoLaunchCommand (64) or InvalidData (65) unless `launch.command` is configured and usable."""
        config = self._brain.config_file.current()
        launching.check_settings(launching.launch_settings(config.raw, config.problem))

    def attach_command(self, sess_id: str, *, current_tmux: str | None,
                       read_only: bool = False) -> tmux_launcher.AttachCommand:
        """The tmux command that shows the window of `sess_id`'s launched agent (`current_tmux`: the caller's $TMUX;
        `read_only`: a client that only watches). Inside an agent's process the client always only watches: typing
        into an agent's pane is a human's act (SPEC 21.2, as `answer`)."""
        read_only = read_only or who_acts.effective(None).is_agent
        record = launching.find_running(self._brain.root, sess_id)
        tmux_launcher.attach_command(record, current_tmux=current_tmux)  # a launch outside tmux, no tmux: refused
        _pane, window = pane_keys.own_pane(record)  # where its agent runs now (a restarted server reuses window ids)
        return tmux_launcher.attach_command(replace(record, window=window), current_tmux=current_tmux,
                                            read_only=read_only)

    def answer(self, sess_id: str, text: str) -> launching.LaunchRecord:
        """Type `text` into the tmux pane of `sess_id`'s launched agent, then Enter (a human's act, SPEC 21.2).

        Raises HumanOnly (77) inside an agent's process; NotFound (66) without a running tmux launch; UsageError (64)
        for an empty reply or one holding control keys; InvalidData (65) when tmux refuses.
        """
        who_acts.require_human("agent answer", sess_id)
        pane_keys.check_reply(text)  # a bad reply is a usage error wherever the agent runs
        record = launching.find_running(self._brain.root, sess_id)
        pane_keys.answer(record, text)
        return record

    def interrupt(self, sess_id: str) -> launching.LaunchRecord:
        """Press Escape in the pane of `sess_id`'s launched agent (its turn stops; a human's act)."""
        who_acts.require_human("agent interrupt", sess_id)
        record = launching.find_running(self._brain.root, sess_id)
        pane_keys.interrupt(record)
        return record

    def stop(self, sess_id: str) -> launching.LaunchRecord:
        """Kill the tmux window of `sess_id`'s launched agent; the claim is left to the protocol (a human's act)."""
        who_acts.require_human("agent stop", sess_id)
        record = launching.find_running(self._brain.root, sess_id)
        pane_keys.stop(record)
        return record

    def handoff_request(self, sig_id: str, snapshot: BrainSnapshot | None = None) -> OpenRequest:
        """The claim a HANDOFF signal asks for (type, scope, parent), opening nothing (see `open_handoff`)."""
        brain = self._brain
        snapshot = snapshot or brain.snapshot()
        signal = signals.require_signal(snapshot, sig_id)
        return handoff.handoff_request(snapshot, signal, brain.instance, brain.config.ttl_default)

    def open_handoff(self, sig_id: str, by: str | None = None, *, actor: Actor | None = None) -> str:
        """Open the claim a HANDOFF signal asks for and acknowledge the signal, in one commit; gives the new claim's
        ID (launch it with `start`). An agent takes up only a HANDOFF addressed to its own claim (NotYours, 77, as
        `signals.ack` refuses it): another's would be hidden from its addressee, and the claim opened nobody's."""
        brain = self._brain
        who = by or brain.human()
        acting = who_acts.acting_in(brain.root, actor)

        def decide(cs: ChangeSet) -> str:
            signal = signals.require_signal(cs.snapshot, sig_id)
            if acting.is_agent:
                signals.check_agent_ack(cs.snapshot, acting, sig_id)
            req = handoff.handoff_request(cs.snapshot, signal, brain.instance, brain.config.ttl_default)
            new_id = claims.open_claim(cs, req, actor=acting)
            signals.ack_signal(cs, sig_id, who)
            cs.message = f"bsi: open satellite {new_id} (handoff {sig_id})"
            return new_id

        from brain_tui.core.rules.own_writes import writing_as

        with writing_as(acting):  # the last door judges the open for the same actor
            return brain.mutate(decide)
