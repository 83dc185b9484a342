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


UNREADABLE_CELLS = ["agents/*.md", "../agents/", "/srv/brain/agents/"]


@pytest.mark.parametrize("cell", UNREADABLE_CELLS)
def test_an_open_row_whose_scope_does_not_read_fails_closed(tmp_path: Path, cell: str) -> None:
    """A record that does not parse blocks what it may hold (SPEC 22): the whole brain, as a claim file would."""
    brain = brain_with_row(tmp_path, cell)
    with pytest.raises(ConflictError) as refused:
        open_on(brain, "agents/x.md")
    [conflict] = refused.value.payload["conflicts"]
    assert conflict["status"] == "corrupt" and conflict["path"] == "BRAIN-INDEX.md"
    assert [c.sess_id for c in brain.check_scope(parse_scope_args(["wiki/"], brain.root))] == ["BRAIN-INDEX.md"]


def test_two_rows_that_do_not_read_both_hold(tmp_path: Path) -> None:
    brain = brain_with_row(tmp_path, "agents/*.md")
    index = tmp_path / "BRAIN-INDEX.md"
    index.write_text(index.read_text(encoding="utf-8") + "| sess-20261129-0801-lgc2 | a@b | wiki/ | — | "
                     "2026-11-29 08:01 | 2026-11-29 12:00 | open |\n| sess-20261129-0802-lgc3 | a@b | todo/?.md | — | "
                     "2026-11-29 08:02 | 2026-11-29 12:00 | open |\n", encoding="utf-8")
    brain = Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")
    with pytest.raises(ConflictError):
        open_on(brain, "todo/x.md")


def test_a_closed_row_whose_scope_does_not_read_holds_nothing(tmp_path: Path) -> None:
    brain = brain_with_row(tmp_path, "agents/*.md")
    index = tmp_path / "BRAIN-INDEX.md"
    index.write_text(index.read_text(encoding="utf-8").replace("| open |", "| closed |"), encoding="utf-8")
    brain = Brain(tmp_path, clock=lambda: T0, commit=False, instance="t@test")
    assert open_on(brain, "agents/x.md")


def test_the_refusal_names_the_row_and_how_to_mend_it(tmp_path: Path) -> None:
    brain = brain_with_row(tmp_path, "agents/*.md")
    with pytest.raises(ConflictError) as refused:
        open_on(brain, "agents/x.md")
    assert LEGACY in str(refused.value) and "`bsi index`" in str(refused.value)
