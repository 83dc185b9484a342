"""Bounds on the text a claim takes, so its file stays under SPEC 13's 64 KiB for life."""

from __future__ import annotations

from brain_tui.core.errors import InvalidData

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Protocol

    class History(Protocol):
        """What takes a gate_history event (a `core.records.changes.ChangeSet`)."""

        def add_history(self, sess_id: str, event: str, by: str, message: str = "") -> None:
            """Append one event to the claim's `gate_history`."""

#: Longest text kept per field of a claim (characters): the file must stay under 64 KiB (SPEC 13) for life.
TEXT_LIMITS = {"story": 8000, "on_done": 1000, "on_partial": 1000, "on_fail": 1000, "theme_branch": 200,
               "instance": 200, "message": 4000, "notes": 4000}
MAX_SCOPE_ENTRIES = 200
#: A new claim file may use at most this much: gate history and the result need the rest of the 64 KiB.
MAX_NEW_CLAIM_BYTES = 32 * 1024
#: Past this size a claim file takes no new gate: what is left of the 64 KiB is kept for its close.
GATE_ROOM_BYTES = 48 * 1024
#: gate_history keeps at most this much of each message (the full text stays in its own field).
HISTORY_TEXT = 500


def check_text(name: str, value: str | None) -> None:
    """Refuse a text field longer than its `TEXT_LIMITS[name]` characters (InvalidData, exit 65), so every claim file
    stays writable."""
    limit = TEXT_LIMITS[name]
    if value is not None and len(value) > limit:
        raise InvalidData(f"invalid {name.replace('_', '-')}: {len(value)} characters, at most {limit}")


def add_history(cs: History, sess_id: str, event: str, by: str, message: str = "") -> None:
    """Append one gate_history event, its message cut so the history cannot outgrow the file."""
    text = message if len(message) <= HISTORY_TEXT else message[: HISTORY_TEXT - 1] + "…"
    cs.add_history(sess_id, event, by, text)
