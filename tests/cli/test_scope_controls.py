"""SPEC 5.1: a scope holding a control character is refused (exit 65), even one Python counts as whitespace.

The legacy rule splits a scope string on whitespace and commas; the separators are the ordinary ones (space, tab,
new line, carriage return, vertical tab, form feed, and Unicode's spaces). The information separators
U+001C–U+001F and the C1 control NEL (U+0085) are control characters: split on them, or trimmed off an entry's
ends, they would let a control character through a scope as if it were a space.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bsi import Run, git, head
from tests.conftest import tree_bytes

Bsi = Callable[..., Run]

CONTROLS = ["\x1c", "\x1d", "\x1e", "\x1f", "\x85"]
PLACES = ["a{c}b.md", "a.md{c}", "{c}a.md", "todo/brain.md#Sprint 3{c}", "a.md,{c}b.md"]


@pytest.mark.parametrize("control", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_control_character_in_a_scope_is_65_and_writes_nothing(brain: Path, bsi: Bsi, control: str) -> None:
    before, files = head(brain), tree_bytes(brain)
    for place in PLACES:
        scope = place.format(c=control)
        for command in (("claim", "open", "--scope", scope), ("check-scope", scope),
                        ("claim", "open", "--scope", "good.md", "--scope", scope)):
            run = bsi(*command, brain=brain)
            assert run.code == 65, (command, run.code, run.out, run.err)
            assert run.out == "" and "control characters" in run.err, (command, run.err)
    assert head(brain) == before and tree_bytes(brain) == files
    assert git(brain, "status", "--porcelain") == ""


def test_ordinary_whitespace_still_separates_entries(brain: Path, bsi: Bsi) -> None:
    for scope in ("a.md b.md", "a.md\tb.md", "a.md\nb.md", "a.md, b.md"):
        run = bsi("--json", "check-scope", scope, brain=brain)
        assert run.code == 0, (scope, run.err)


@pytest.mark.parametrize("control", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_control_character_at_a_files_end_is_refused_not_trimmed(brain: Path, bsi: Bsi, control: str) -> None:
    """A lock's or a preflight's file (SPEC 9, 10) is normalised as a scope's path is: `a.md` plus U+001F is another
    name than `a.md`, refused (65 for a lock, 1 "never outside the scope" for a preflight), never trimmed to it."""
    sess = bsi("claim", "open", "--scope", "w/", brain=brain).out.strip()
    before, files = head(brain), tree_bytes(brain)
    for file in (f"w/a.md{control}", f"{control}w/a.md"):
        run = bsi("lock", "acquire", file, sess, brain=brain)
        assert run.code == 65 and "control characters" in run.err, (file, run)
        run = bsi("preflight", "check", sess, file, brain=brain)
        assert run.code == 1 and "control characters" in run.err, (file, run)
    assert head(brain) == before and tree_bytes(brain) == files
    assert bsi("lock", "acquire", " w/a.md\n", sess, brain=brain).code == 0  # the ASCII spaces are still trimmed
