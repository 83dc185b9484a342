"""`brain.breath`: the context-broker's breath records and metrics (SPEC 17), with its typed results.

A typed sub-object of the `Brain` facade, like `brain.gates` (core/facade.py), in a module of its own so
that a read of another area never creates these records: the rules are in core/environment/breath.py and
breath_metrics.py, the records' format in core/records/breath_records.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from brain_tui.core.environment import breath as breath_rules
from brain_tui.core.environment import breath_metrics
from brain_tui.core.errors import InvalidData, NotFound
from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.record import field, record
from brain_tui.core.records import breath_records
from brain_tui.core.records.model import BrainSnapshot, CorruptFile

if TYPE_CHECKING:
    from brain_tui.core.brain import Brain
    from brain_tui.core.records.changes import ChangeSet


@record
class Inhaled(JsonShaped):
    """What `breath inhale` recorded, with the alerts of the 2-sources rule."""

    sprint: str
    agent: str
    files: tuple[str, ...]
    alerts: tuple[dict[str, Any], ...]


@record
class Referenced(JsonShaped):
    """The files `breath reference` newly added."""

    sprint: str
    added: tuple[str, ...]


@record
class Expired(JsonShaped):
    """What `breath expire` released and kept, with its warnings (files never inhaled)."""

    sprint: str
    released: tuple[str, ...]
    kept: Mapping[str, str]
    warnings: tuple[str, ...]


@record
class BreathMetrics(JsonShaped):
    """The metrics of the sprints asked for, and the breath files that did not load."""

    sprints: tuple[breath_metrics.SprintMetrics, ...]
    corrupt: tuple[CorruptFile, ...] = field(default_factory=tuple)

    #: SPEC 19 gives `{"sprints": [...]}`: the files that did not load only when there are some
    _json_if_set: ClassVar[frozenset[str]] = frozenset({"corrupt"})


class Breath:
    """The context-broker's breath records and metrics (SPEC 17)."""

    def __init__(self, brain: Brain) -> None:
        self._brain = brain

    def inhale(self, sprint: str, agent: str, files: Sequence[str], session: str | None = None) -> Inhaled:
        """Record the files loaded for one agent (alerts, never refusals, for the 2-sources rule)."""
        def decide(cs: ChangeSet) -> list[dict[str, Any]]:
            found = breath_rules.inhale(cs, sprint, agent, files, session=session)
            breath_rules.tell_pilot(cs, sprint)
            return found

        alerts = self._brain.mutate(decide)
        return Inhaled(sprint, agent.strip(), tuple(breath_rules.breath_files(files)), tuple(alerts))

    def reference(self, sprint: str, files: Sequence[str]) -> Referenced:
        """Record files the sprint actually used."""
        def decide(cs: ChangeSet) -> list[str]:
            found = breath_rules.reference(cs, sprint, files)
            breath_rules.tell_pilot(cs, sprint)
            return found

        added = self._brain.mutate(decide)
        return Referenced(sprint, tuple(added))

    def expire(self, sprint: str, files: Sequence[str], kept: Mapping[str, str] | None = None) -> Expired:
        """Release files (or keep them with a reason); closes the sprint."""
        keep = dict(kept or {})
        def decide(cs: ChangeSet) -> list[str]:
            found = breath_rules.expire(cs, sprint, files, keep)
            breath_rules.tell_pilot(cs, sprint)
            return found

        warnings = self._brain.mutate(decide)
        released, kept_files = breath_rules.release_map(files, keep)
        return Expired(sprint, tuple(released), kept_files, tuple(warnings))

    def metrics(self, sprints: Sequence[str] = (), snapshot: BrainSnapshot | None = None) -> BreathMetrics:
        """Metrics of every sprint, or of the sprints named (read-only).

        With a `snapshot`, computed from the records it holds (the cockpit's); without, only the breath records are
        read from disk (through the store and its parse cache). Raises InvalidData for a malformed sprint ID (65),
        NotFound when a named sprint has no record (66), InvalidData (65) when its record does not read.
        """
        for sprint in sprints:
            breath_records.validate_sprint_id(sprint)
        records, corrupt = ((snapshot.breath, snapshot.breath_corrupt) if snapshot is not None
                            else self._brain.store.breath())
        rows = breath_metrics.metrics(records)
        if sprints:
            known = {m.sprint for m in rows}
            missing = [s for s in sprints if s not in known]
            if missing:
                unread = next((c for c in corrupt if c.path == breath_records.record_path(missing[0])), None)
                if unread is not None:
                    raise InvalidData(f"{unread.path} line {unread.line}: {unread.reason}")
                raise NotFound(f"no breath record for {missing[0]}")
            wanted = set(sprints)
            rows = [m for m in rows if m.sprint in wanted]
        return BreathMetrics(tuple(rows), tuple(corrupt))

    @staticmethod
    def thresholds_text() -> str:
        """The alert thresholds in one line, as `bsi breath show` prints them under the table."""
        return breath_metrics.thresholds_text()
