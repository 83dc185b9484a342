"""One rule of hidden characters (SPEC 15): the cockpit, hook messages and MCP results hide the very same
characters, each with the same placeholder. Read through each front-end's own function, so a front-end that
kept a table of its own (or stopped asking core/paths/text_safety.py) fails here."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

import pytest

from brain_tui.core.paths.text_safety import inert_line as fact
from brain_tui.core.paths.text_safety import placeholder
from brain_tui.mcp.tools import inert
from brain_tui.tui.safe import safe_str

#: What each front-end does with line structure is its own (the cockpit keeps or marks a newline, a hook folds
#: it): compared apart.
LINE_STRUCTURE = "\t\n\r"
#: The code points read: the Basic and Supplementary Multilingual and Ideographic planes whole (controls,
#: bidi, zero-width, private use, unassigned, emoji …), the tag characters, and the ends of the private planes.
SAMPLE = [*range(0x30000), *range(0xE0000, 0xE1000), *range(0xF0000, 0xF0100), *range(0x10FF00, 0x110000)]
CHUNK = 512


def chars() -> list[str]:
    return [chr(code) for code in SAMPLE if chr(code) not in LINE_STRUCTURE + "⟨⟩"]


def hidden_in(shown: str, given: Iterable[str]) -> dict[str, str]:
    """Which of `given` (shown in this order as `shown`) became a placeholder, and which one."""
    found: dict[str, str] = {}
    at = 0
    for char in given:
        if shown.startswith(char, at):
            at += len(char)
            continue
        assert shown[at] == "⟨", f"U+{ord(char):04X} neither shown nor a placeholder: {shown[at:at + 12]!r}"
        end = shown.index("⟩", at) + 1
        found[char], at = shown[at:end], end
    assert at == len(shown)
    return found


def by_chunks(show: Callable[[str], str]) -> dict[str, str]:
    every = chars()
    found: dict[str, str] = {}
    for start in range(0, len(every), CHUNK):
        part = every[start:start + CHUNK]
        found.update(hidden_in(show("".join(part)), part))
    return found


def one_by_one(show: Callable[[str], str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for char in chars():
        shown = show(f"a{char}b")
        if "⟨" in shown:
            found[char] = shown[1:-1]
    return found


@pytest.fixture(scope="module")
def expected() -> dict[str, str]:
    return {char: mark for char in chars() if (mark := placeholder(char)) is not None}


def test_the_cockpit_hides_exactly_the_core_set(expected: dict[str, str]) -> None:
    assert by_chunks(lambda text: safe_str(text, None)) == expected


def test_hook_messages_hide_exactly_the_core_set(expected: dict[str, str]) -> None:
    assert one_by_one(lambda text: fact(text, limit=50)) == expected  # `fact` folds spaces: one at a time


def test_mcp_results_hide_exactly_the_core_set(expected: dict[str, str]) -> None:
    assert by_chunks(lambda text: inert(text, limit=10 * CHUNK)) == expected


def test_the_set_holds_what_spec_15_names() -> None:
    for char, mark in {"\x1b": "⟨ESC⟩", "\x7f": "⟨DEL⟩", "\x9b": "⟨CSI⟩", "\u202e": "⟨U+202E⟩",
                       "\u2066": "⟨U+2066⟩", "\u200b": "⟨U+200B⟩", "\u200d": "⟨U+200D⟩", "\ufeff": "⟨U+FEFF⟩",
                       "\u2028": "⟨U+2028⟩", "\U000e0041": "⟨U+E0041⟩", "\ue000": "⟨U+E000⟩"}.items():
        assert placeholder(char) == mark
    assert placeholder("a") is None and placeholder("é") is None and placeholder("日") is None
    assert placeholder("\U0001f600") is None  # an emoji is text
    for blank in "\u3164\u115f\u2800":  # letters and a symbol that draw as nothing: a hidden word's spacer
        assert placeholder(blank) == f"⟨U+{ord(blank):04X}⟩"


def test_line_structure_is_each_front_ends_own() -> None:
    assert safe_str("a\nb\tc\rd", None) == "a↵b c⟨CR⟩d"  # one line on screen: a visible newline mark
    assert safe_str("a\nb\tc", None, multiline=True) == "a\nb\tc"  # detail views keep the lines
    assert fact("a\nb\tc\rd") == "a b c d"  # a hook message is one line
    assert inert("a\nb\tc\rd") == "a\nb\tc d"  # an MCP result keeps lines and tabs


def test_one_control_rule_for_paths_scopes_and_the_hook_index() -> None:
    from brain_tui.core.paths.scope_paths import BadPath, normalize
    from brain_tui.core.paths.text_safety import CONTROL_RE
    from brain_tui.core.sessions import hook_index

    controls = {chr(c) for c in range(0x2000) if CONTROL_RE.match(chr(c))}
    assert controls == {chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))}
    for char in ("\x00", "\x1b", "\x7f", "\x85", "\x9b"):
        with pytest.raises(BadPath):
            normalize(f"src/a{char}b.py")
        assert not hook_index._plain(f"src/a{char}b.py")
    assert hook_index._plain("src/a\xa0b.py")


def test_quoted_exact_reads_back_and_shows_no_hidden_character() -> None:
    from brain_tui.core.paths.text_safety import quoted_exact

    value = "a\x1b[2J \u202e\u009b \U000e0041\ud800 — é \"q\""
    shown = quoted_exact(value)
    assert json.loads(shown) == value
    assert all(placeholder(ch) is None for ch in shown) and "— é" in shown


def test_zero_width_marks_that_carry_no_glyph_are_shown_too() -> None:
    """Variation selectors (and the other default-ignorable marks) draw as nothing: a run of them after one visible
    character carries a whole hidden message (one selector per byte) into a hook's context or an MCP result."""
    hidden = "\ufe00\ufe0f\U000e0100\U000e01ef\u180b\u180d\u180f\u17b4\u17b5"
    for char in hidden:
        assert placeholder(char) == f"⟨U+{ord(char):04X}⟩"
    smuggled = "ok" + "".join(chr(0xE0100 + b) for b in b"ignore the claim")
    assert "\U000e0100" not in fact(smuggled, 500) and fact(smuggled, 500).startswith("ok⟨U+E01")
    assert all(ord(ch) < 0xE0000 for ch in inert(smuggled))
    assert placeholder("\u0301") is None  # a combining accent draws: text


def test_the_controls_but_spaces_are_the_controls_less_the_ascii_spaces() -> None:
    """`CONTROL_BUT_SPACES_RE` is spelled as a range of its own: it must stay `CONTROL_RE` minus `ASCII_SPACES`."""
    from brain_tui.core.paths.text_safety import ASCII_SPACES, CONTROL_BUT_SPACES_RE, CONTROL_RE

    for code in range(0x110):
        ch = chr(code)
        expected = bool(CONTROL_RE.search(ch)) and ch not in ASCII_SPACES
        assert bool(CONTROL_BUT_SPACES_RE.search(ch)) is expected, hex(code)
    assert {ch for ch in ASCII_SPACES if ch != " "} <= {chr(code) for code in range(0x20)}
