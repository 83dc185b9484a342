"""A hand-written (v1) BRAIN-INDEX.md's open claim rows hold their scope as a claim file would (SPEC 6.2, 22), asked
of `Brain` in process: the `Portée` cell is markdown, so code spans around each entry are markup, not names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.errors import ConflictError
from brain_tui.core.paths.scope import parse_scope_args

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
LEGACY = "sess-20261129-0800-lgcy"


def brain_with_row(root: Path, cell: str, level: str = "—") -> Brain:
    """A brain whose old index holds one open claim row with the `Portée` cell `cell` (no generated block)."""
    for folder in ("claims", "signals", "locks", "breath"):
        (root / folder).mkdir()
    (root / "BRAIN-INDEX.md").write_text(
        "# Index\n\n## Claims actifs\n\n"
        "| Session | Instance | Portée | Niveau | Ouvert le | Expire le | État |\n|---|---|---|---|---|---|---|\n"
        f"| {LEGACY} | prod@desktop | {cell} | {level} | 2026-11-29 08:00 | 2026-11-29 12:00 | open |\n",
        encoding="utf-8")
    return Brain(root, clock=lambda: T0, commit=False, instance="t@test")


def open_on(brain: Brain, scope: str) -> str:
    return brain.open_claim(OpenRequest(scope=parse_scope_args([scope], brain.root), ttl=timedelta(hours=2),
                                        instance="t@test"))


CODE_SPANS = [
    ("`agents/`, `todo/`", "dir", "todo/x.md"),
    ("`agents/` `todo/`", "—", "agents/x.md"),
    ("`agents/` `todo/`", "—", "todo/"),
    ("`todo/brain.md` ## Sprint 3", "section", "todo/brain.md"),
    ("``wiki/page.md``", "file", "wiki/page.md"),
]


@pytest.mark.parametrize(("cell", "level", "asked"), CODE_SPANS)
def test_entries_written_as_code_spans_are_held(tmp_path: Path, cell: str, level: str, asked: str) -> None:
    brain = brain_with_row(tmp_path, cell, level)
    with pytest.raises(ConflictError) as refused:
        open_on(brain, asked)
    assert [c["sess_id"] for c in refused.value.payload["conflicts"]] == [LEGACY]
