"""A write's journal knows its own commit by the message (`Journal.landed`): the message it records is the one the
commit holds, also when brain text in it is made inert (SPEC 15). Otherwise a write killed after its commit would be
read, at the next command, as not landed and rolled back.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.bootstrap import init_brain
from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records import journal

NOW = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
FILE = "wiki/\u202ecod.exe\u200b.md"


def test_the_journal_of_a_lock_on_a_hidden_character_name_recognises_its_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = init_brain(tmp_path / "brain")
    brain = Brain(root, clock=lambda: NOW, instance="t@test")
    sess = brain.open_claim(OpenRequest(scope=parse_scope("wiki/"), ttl=timedelta(hours=2), instance="t@test"))
    seen: list[tuple[str, bool]] = []
    finish = journal.Journal.finish

    def finishing(self: journal.Journal) -> None:
        seen.append((self.message, self.landed()))
        finish(self)

    monkeypatch.setattr(journal.Journal, "finish", finishing)
    brain.locks.acquire(FILE, sess)
    assert seen and seen[-1][1], seen  # the commit made is the journal's own
    assert "⟨U+202E⟩" in seen[-1][0]
