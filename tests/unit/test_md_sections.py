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
    ("## A\na\x0c## B\n", [None, "a"]),  # a form feed ends no line: `## B` is text of the line
    ("## A\na\x85## B\u2028## C\x1c## D\x0b## E\n", [None, "a"]),  # nor NEL, LS, FS, VT
    ("## A\ra\r## B\rb", [None, "a", "b"]),  # a lone CR does (CommonMark)
])
def test_parts_cut_at_headings_and_give_the_text_back(text: str, keys: list[str | None]) -> None:
    found = parts(text)
    assert [p.key for p in found] == keys
    assert "".join(p.text for p in found) == text


@pytest.mark.parametrize(("text", "hidden"), [
    ("## A\n<!--\n## B\nb\n", [False, False, True]),  # a comment never closed
    ("## A\n<!-- x -->\n## B\n", [False, False, False]),
    ("## A\n<div>\n## B\n\n## C\n", [False, False, True, False]),  # to the blank line
    ("## A\n<pre>\n\n## B\n</pre>\n## C\n", [False, False, True, False]),  # to the closing tag
    ("## A\n<https://x.org>\n## B\n", [False, False, False]),  # an autolink opens no block
    ("## A\n```\n<!--\n```\n## B\n", [False, False, False]),  # fenced: no HTML
])
def test_a_heading_inside_an_html_block_is_hidden(text: str, hidden: list[bool]) -> None:
    """A heading a markdown reader takes for raw HTML (a comment, a block run to a blank line or its closing tag)
    still cuts, as the raw text shows it, and is marked hidden."""
    assert [p.hidden for p in parts(text)] == hidden


def test_fences_never_closed_are_read_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fence line that never closes is seen once, not once per fence left open above it: a text of 2000
    ``` ```a ``` lines (none closes another: a closing fence has no info) costs a few reads a line, not millions
    (a hook that ran for minutes on a 20 kB write would be given up by the client)."""
    from brain_tui.core.paths import md_sections

    reads = 0
    pattern = md_sections._FENCE_RE

    class Counting:
        def fullmatch(self, string: str) -> object:
            nonlocal reads
            reads += 1
            return pattern.fullmatch(string)

    monkeypatch.setattr(md_sections, "_FENCE_RE", Counting())
    text = "## A\n" + "```a\n" * 2000 + "## B\nb\n"
    found = parts(text)
    assert [p.key for p in found] == [None, "a", "b"]
    assert reads < 10 * 2000
