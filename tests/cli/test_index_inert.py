"""BRAIN-INDEX.md shows brain text inert and visible (SPEC 8, 13, 15): a bidi override or an invisible character in
a scope, an instance or a payload is written as its placeholder, never as itself."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import ok, run_bsi

HIDDEN = ("\u202e", "\u200b", "\u2066", "\u3164", "\ufeff")


def _generated(root: Path) -> str:
    text = (root / "BRAIN-INDEX.md").read_text(encoding="utf-8")
    return text[text.index("<!-- bsi:generated:start -->"):]


def test_bidi_and_invisible_characters_show_as_placeholders_in_the_index(brain: Path) -> None:
    """Before: they were written as they are, so the index read in an editor, a terminal or a forge showed the
    scope `rtl‮gnp.md` reversed and the payload's zero-width characters not at all."""
    ok(run_bsi("claim", "open", "--scope", "rtl\u202egnp.md#Sec\u200bX", "--slug", "bidi", brain=brain))
    ok(run_bsi("signal", "send", "--to", "human:ann", "--type", "INFO",
               "pay\u2066load \u3164 and\ufeff more | é", brain=brain))
    generated = _generated(brain)
    assert not any(ch in generated for ch in HIDDEN), [ch for ch in HIDDEN if ch in generated]
    assert "| rtl⟨U+202E⟩gnp.md#Sec⟨U+200B⟩X |" in generated
    assert "| pay⟨U+2066⟩load ⟨U+3164⟩ and⟨U+FEFF⟩ more \\| é |" in generated
    assert run_bsi("--no-commit", "index", brain=brain).code == 0
    assert _generated(brain) == generated  # still a pure function of the files
