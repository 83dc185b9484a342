"""A holder of `plan.md#Alpha` cannot put a heading a reader sees as `## Beta` into its own section, nor hide
Beta's heading from the rule, however the heading is spelled (SPEC 5.2, 20.2): a `##` followed by another space
(Python-Markdown, MkDocs' reader, needs none), a heading inside a block quote or a list item, an HTML `<h2>`.
Each such line cuts, and opens a part no section scope holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.paths.md_sections import parts
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied
from tests.hooks.test_section_writes import OTHER, PLAN, edit, two_sections

#: Lines a markdown reader renders as a `##` (or `#`) heading "Beta".
READ_AS_BETA = [
    "##\u00a0Beta",  # a non-breaking space: Python-Markdown's heading
    "##\u2003Beta",  # an em space
    "> ## Beta",  # in a block quote
    ">## Beta",
    "> > # Beta",
    "- ## Beta",  # in a list item
    "* ## Beta",
    "+ ## Beta",
    "1. ## Beta",
    "12) ## Beta",
    "- > ## Beta",
    "> Beta\n> ---",  # a setext heading in a block quote
    "<h2>Beta</h2>",  # raw HTML a reader renders
    "<H1 class=x>Beta</H1>",
    "> <h2>Beta</h2>",
]


@pytest.mark.parametrize("line", READ_AS_BETA)
def test_a_heading_a_reader_sees_cuts_held_by_no_scope(line: str) -> None:
    found = parts(f"## Alpha\na\n{line}\nb\n## Gamma\n")
    assert [p.key for p in found] == [None, "alpha", None, "gamma"]
    assert "b\n" in found[2].text


@pytest.mark.parametrize("line", READ_AS_BETA)
def test_a_section_holder_cannot_add_such_a_heading(brain: Path, line: str) -> None:
    two_sections(brain)
    assert_denied(edit(brain, "alpha text", f"alpha\n{line}\nfake beta text"), "plan.md")
    assert (brain / "plan.md").read_text() == PLAN


@pytest.mark.parametrize("line", ["##\u00a0Beta", "> ## Beta", "<h2>Beta</h2>"])
def test_text_under_such_a_heading_is_no_ones_section(brain: Path, line: str) -> None:
    """B's heading written so: the text under it is not Alpha's to change (nor Beta's: claim the whole file)."""
    two_sections(brain, f"## Alpha\nalpha text\n\n{line}\nbeta text\n")
    assert_denied(edit(brain, "beta text", "HACKED"), "plan.md")
    assert_denied(edit(brain, "beta text", "HACKED", session=OTHER), "plan.md")
    assert_allowed(edit(brain, "alpha text", "alpha, more"))


@pytest.mark.parametrize(("text", "keys"), [
    ("## A\n- item\n> quote\n1. one\n* star\n+ plus\n<div>x</div>\n\n## B\n", [None, "a", "b"]),  # no heading
    ("## A\n> ### sub\n- ### sub\n<h3>sub</h3>\n\n## B\n", [None, "a", "b"]),  # an h3 is text of its section
    ("## A\n- ---\n", [None, "a"]),  # a thematic break in a list item right below a heading
    ("## A\n> #tag\n", [None, "a"]),  # no space after one `#`: a tag, as at the start of a line
])
def test_containers_without_an_h1_or_h2_do_not_cut(text: str, keys: list[str | None]) -> None:
    assert [p.key for p in parts(text)] == keys
