"""Two spellings of one `##` section are one scope (SPEC 5.1, 5.2): a second claim on it is refused (exit 10)
whatever the spelling, whenever a markdown reader renders the two titles as one heading. Asked of `Brain` in
process; tests/cli/test_section_spellings.py keeps the `bsi` and MCP sides."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from tests.rules.facade import assert_second_name_refused, open_in, refused

ETE = "\u00c9t\u00e9"

#: (held, asked): the same section, spelled twice. Each pair is refused in both orders.
SAME_SECTION = [
    ("plan.md#Beta", "plan.md#beta"),
    ("plan.md#Beta", "plan.md#BETA"),
    ("plan.md#Beta", "plan.md#Beta "),
    ("plan.md#Be ta", "plan.md#Be\u00a0ta"),  # a non-breaking space
    ("plan.md#Be ta", "plan.md#Be   ta"),
    (f"plan.md#{ETE}", "plan.md#" + unicodedata.normalize("NFD", ETE)),
    ("plan.md#Beta", "plan.md#Be\u200dta"),  # zero-width joiner
    ("plan.md#Beta", "plan.md#Be\u200bta"),  # zero-width space
    ("plan.md#Beta", "plan.md#Beta #"),  # an ATX closing sequence
    ("plan.md#Beta", "plan.md#**Beta**"),
    ("plan.md#Beta", "plan.md ## Beta"),
    ("plan.md#Beta", "plan.md § beta"),
    ("plan.md#Beta", "./plan.md#Beta"),
    ("plan.md#Beta", "PLAN.md#Beta"),
    ("plan.md#Be#ta", "plan.md § be#ta"),
    # characters a reader draws as nothing
    ("plan.md#Beta", "plan.md#Be\u00adta"),  # a soft hyphen
    ("plan.md#Beta", "plan.md#Beta\u2060"),  # a word joiner
    ("plan.md#Beta", "plan.md#Be\u034fta"),  # a combining grapheme joiner
    ("plan.md#Beta", "plan.md#Beta\ufe0f"),  # a variation selector
    ("plan.md#Beta", "plan.md#Be\U000e0041ta"),  # a tag character
    # markdown's spellings of one character: an entity, a backslash escape
    ("plan.md#Beta", "plan.md#&#66;eta"),
    ("plan.md#Beta", "plan.md#B&#x65;ta"),
    ("plan.md#Be ta", "plan.md#Be&nbsp;ta"),
    ("plan.md#Beta", "plan.md#Be&shy;ta"),
    ("plan.md#Be-ta", "plan.md#Be\\-ta"),
    ("plan.md#Beta", "plan.md#Beta \\#"),  # renders "Beta #", whose closing sequence `Beta #` drops
]


@pytest.mark.parametrize(("held", "asked"), SAME_SECTION)
def test_two_spellings_of_one_section_are_one_scope(brain: Path, held: str, asked: str) -> None:
    assert_second_name_refused(brain, held, asked)


@pytest.mark.parametrize(("held", "asked"), SAME_SECTION)
def test_two_spellings_of_one_section_are_one_scope_the_other_way(brain: Path, held: str, asked: str) -> None:
    assert_second_name_refused(brain, asked, held)


@pytest.mark.parametrize("asked", ["plan.md#Be\tta", "plan.md#", "plan.md/#Beta", "plan.md#\u200b",
                                   "plan.md#&shy;", "plan.md#**"])
def test_a_title_that_names_no_heading_is_refused_at_open(brain: Path, asked: str) -> None:
    """A tab (a control character), an empty title, a folder's section, a title drawn as nothing."""
    refused(lambda: open_in(brain, asked), 65)


#: A section and what holds it: its file, its folder, the brain.
ABOVE = ["docs/plan.md", "DOCS/Plan.md", "docs/", "docs", "*", "global", "/"]


@pytest.mark.parametrize("whole", ABOVE)
def test_a_section_meets_its_file_folder_and_brain_in_both_orders(brain: Path, whole: str) -> None:
    (brain / "docs").mkdir()
    (brain / "docs" / "plan.md").write_text("## Beta\n")
    assert_second_name_refused(brain, "docs/plan.md#Beta", whole)


@pytest.mark.parametrize("whole", ABOVE)
def test_a_whole_meets_a_section_of_it(brain: Path, whole: str) -> None:
    (brain / "docs").mkdir()
    (brain / "docs" / "plan.md").write_text("## Beta\n")
    assert_second_name_refused(brain, whole, "docs/plan.md § beta")


#: Titles a reader renders apart stay two sections.
APART = [
    ("plan.md#Beta", "plan.md#Beta2"),
    ("plan.md#Beta", "plan.md#Be ta"),
    ("plan.md#Beta", "plan.md#\uff22\uff45\uff54\uff41"),  # full-width letters: drawn wider
    ("plan.md#Beta", "plan.md#\u0392eta"),  # a Greek capital beta
]


@pytest.mark.parametrize(("held", "asked"), APART)
def test_titles_a_reader_tells_apart_are_two_sections(brain: Path, held: str, asked: str) -> None:
    open_in(brain, held, slug="first")
    open_in(brain, asked, slug="second")
