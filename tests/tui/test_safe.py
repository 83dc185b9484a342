"""safe_text (SPEC 15): brain text is shown inert and visible, never as markup or terminal control."""

from __future__ import annotations

from rich.console import Console
from textual.content import Content

from brain_tui.tui.safe import safe_str, safe_text
from brain_tui.tui.styles import PLACEHOLDER

HOSTILE = "a\x1b[31mred\x1b]0;pwned\x07 [b]bold[/b] [ @click=app.quit] \u202eevil\u200bzw \x9b1m\x7f"


def rendered(text: Content) -> str:
    """What would be sent to a terminal for this Content."""
    console = Console(width=400, force_terminal=True, color_system="truecolor", legacy_windows=False)
    with console.capture() as capture:
        console.print(text)
    return capture.get()


def test_controls_become_named_placeholders() -> None:
    out = safe_str(HOSTILE, None)
    assert "⟨ESC⟩[31mred⟨ESC⟩]0;pwned⟨BEL⟩" in out
    assert "⟨CSI⟩1m⟨DEL⟩" in out
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in out)


def test_bidi_and_zero_width_are_visible() -> None:
    out = safe_str("x\u202ey\u2066z\u200b\u200d\ufeff\u2028", None)
    assert out == "x⟨U+202E⟩y⟨U+2066⟩z⟨U+200B⟩⟨U+200D⟩⟨U+FEFF⟩⟨U+2028⟩"


def test_markup_is_never_parsed() -> None:
    text = safe_text("[b]bold[/b] [ @click=app.quit] [link=https://x]y[/link]", None)
    assert text.plain == "[b]bold[/b] [ @click=app.quit] [link=https://x]y[/link]"
    assert text.spans == []  # no style, no link, no action came from the data
    assert not any(seg.style and (seg.style.meta or seg.style.link) for seg in text.render_segments())


def test_no_escape_from_data_reaches_the_terminal() -> None:
    out = rendered(safe_text(HOSTILE, None))
    assert "\x1b[31mred" not in out and "\x1b]0;pwned" not in out and "\x07" not in out
    assert "\u202e" not in out and "\u200b" not in out and "\x9b" not in out
    assert "[b]bold[/b]" in out


def test_placeholders_are_styled_apart_and_newlines_follow_the_mode() -> None:
    one_line = safe_text("a\nb\tc", None)
    assert one_line.plain == "a↵b c"
    assert one_line.spans[0].style == PLACEHOLDER
    assert safe_text("a\nb\tc", None, multiline=True).plain == "a\nb\tc"


def test_long_fields_are_truncated_with_an_ellipsis() -> None:
    assert safe_str("x" * 50, 10) == "x" * 9 + "…"
    assert safe_str("日本語日本語", 5) == "日本…"  # display width, not characters
    assert safe_str("ab\x1bcdef", 4) == "ab…"  # a placeholder is never cut in half
    assert safe_str(None) == "" and safe_str(42) == "42"
