"""The `##` sections of a markdown text as the write decision reads them (`md_sections`, SPEC 5.1)."""

from __future__ import annotations

import pytest

from brain_tui.core.paths.md_sections import parts


@pytest.mark.parametrize(("text", "keys"), [
    ("", [None]),
    ("intro\n## A\na\n## B ##\nb\n", [None, "a", "b"]),
    ("\ufeff## A\r\na\r\n## **B**  \r\nb\r\n", [None, "a", "b"]),
    ("## A\n### sub\n## B\n", [None, "a", "b"]),  # an h3 is text of its section
    ("## A\n# Top\nt\n## B\n", [None, "a", None, "b"]),  # an h1 cuts, held by no scope
    ("## A\npara\n---\nx\n", [None, "a", None]),  # a setext heading: the underlined line starts it
    ("## A\n\n---\nx\n", [None, "a"]),  # a thematic break
    ("## A\n##B\nx\n", [None, "a", None]),  # no space: a heading to some readers, held by none
    ("## A\n```md\n## B\n```\n~~~\n## C\n~~~~\n## D\n", [None, "a", "d"]),  # fenced headings are text
    ("## A\n```\n## B\n", [None, "a", "b"]),  # a fence never closed: the headings below it still cut
    ("## A\n```\n```\n```\n## B\n", [None, "a", "b"]),
    ("## A\n    ## B\n", [None, "a"]),  # indented code
])
def test_parts_cut_at_headings_and_give_the_text_back(text: str, keys: list[str | None]) -> None:
    found = parts(text)
    assert [p.key for p in found] == keys
    assert "".join(p.text for p in found) == text
