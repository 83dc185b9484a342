"""A form field the cockpit fills in from the brain is brain text on the screen like any other (SPEC 15).

The send-signal form's "To" (the selected claim's parent) and the open form's scope and parent (a HANDOFF signal's)
come from records another session, or a hand, wrote. An input shows its value as it is, so a value holding an
escape sequence, a bidi override or an invisible character is not filled in: it would reach the terminal (an OSC
that retitles it), or, turned into placeholders, be submitted as a different scope. The form names it, inert.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from brain_tui.core.paths.text_safety import placeholder
from brain_tui.tui.safe import field_value
from brain_tui.tui.screens.claim_form import OpenClaimScreen
from brain_tui.tui.screens.quick import SendSignalDialog

from .conftest import DEPLOY, PILOT, screen_text, select, settle

pytestmark = pytest.mark.anyio

WIDE = (120, 40)
HAND_CLAIM = "sess-20261129-0955-hand"
HAND_SIGNAL = "sig-20261129-095900-hand"
#: A parent and a scope as a hand (or a peer's sync) may leave them: an OSC that retitles the terminal, a bidi override.
HOSTILE_PARENT = PILOT + "\u202e\x1b]0;PWNED\x07"
HOSTILE_SCOPE = "wiki/\x1b]0;PWNED\x07\u202ex.md"


def yaml_text(value: str) -> str:
    """`value` as a double-quoted YAML scalar."""
    return '"' + value.encode("unicode_escape").decode("ascii").replace("\\x1b", "\\e").replace("\\x07", "\\a") + '"'


def hidden(text: str) -> list[str]:
    """The characters of `text` the cockpit never shows as they are."""
    return [ch for ch in text if ch not in "\n" and placeholder(ch) is not None]


def write_hand_claim(root: Path) -> None:
    (root / "claims" / f"{HAND_CLAIM}.yml").write_text(
        f"sess_id: {HAND_CLAIM}\ntype: satellite\ninstance: prod@desktop\nscope: wiki/hand.md\nstory_angle: hand\n"
        f"status: open\nopened_at: '2026-11-29T09:55:00+00:00'\nttl: 2h\nexpires_at: '2026-11-29T11:55:00+00:00'\n"
        f"parent_satellite: {yaml_text(HOSTILE_PARENT)}\n", encoding="utf-8")


def write_hand_handoff(root: Path) -> None:
    (root / "signals" / f"{HAND_SIGNAL}.yml").write_text(
        f"sig_id: {HAND_SIGNAL}\nfrom: {DEPLOY}\nto: {yaml_text(HOSTILE_PARENT)}\ntype: HANDOFF\n"
        f"scope: {yaml_text(HOSTILE_SCOPE)}\npayload: 'launch type:code scope:wiki/x.md'\nstate: pending\n"
        "created_at: '2026-11-29T09:59:00+00:00'\n", encoding="utf-8")


async def test_send_form_never_fills_in_a_hostile_parent(make_app, demo_root: Path) -> None:  # noqa: ANN001
    write_hand_claim(demo_root)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await select(pilot, "#active", HAND_CLAIM)
        await pilot.press("S")
        await settle(pilot)
        assert isinstance(app.screen, SendSignalDialog)
        for field in app.screen.query(Input):
            assert hidden(field.value) == [], field.id
        text = screen_text(app)
        assert hidden(text) == []
        assert "(hidden characters): " + PILOT + "⟨U+202E⟩⟨ESC⟩" in text  # named inert (cut at the width)


async def test_open_form_never_fills_in_a_hostile_handoff_scope(make_app, demo_root: Path) -> None:  # noqa: ANN001
    write_hand_handoff(demo_root)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await select(pilot, "#signals", HAND_SIGNAL)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, OpenClaimScreen)
        for field in app.screen.query(Input):
            assert hidden(field.value) == [], field.id
        text = screen_text(app)
        assert hidden(text) == []
        assert "wiki/⟨ESC⟩]0;PWNED⟨BEL⟩⟨U+202E⟩x.md" in text  # named, inert, so the pilot knows what was asked


def test_a_value_that_shows_as_it_is_fills_the_field_and_no_other_does() -> None:
    assert field_value("brain-engine/api/routes.py") == "brain-engine/api/routes.py"
    assert field_value("wiki/é [b]x[/b].md") == "wiki/é [b]x[/b].md"  # markup is no danger in an input's value
    for hostile in ("a\nb", "a\x1bb", "a\u200bb", "a\x9bb", "a\x7fb", None):
        assert field_value(hostile) == ""
