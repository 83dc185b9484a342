"""A Codex patch's files, read as Codex's lenient parser reads them (`core.sessions.patch_text`)."""

from __future__ import annotations

from brain_tui.core.sessions.patch_text import patch_paths


def test_every_header_is_read_whatever_whitespace_surrounds_it() -> None:
    patch = ("*** Begin Patch\r\n*** Update File: src/a.py\r\n@@\r\n-a\r\n+b\r\n  *** Add File: claims/x.yml  \n+h\n"
             "\t*** Delete File: docs/d.md\n\u3000*** Add File: notes/n.md\n*** End Patch\n")
    assert patch_paths(patch) == ["src/a.py", "claims/x.yml", "docs/d.md", "notes/n.md"]


def test_a_move_is_read_as_written_and_trimmed() -> None:
    """Codex takes a `Move to:` line untrimmed: `docs/a.md  ` (trailing spaces) is another file than `docs/a.md`."""
    patch = "*** Begin Patch\n*** Update File: docs/a.md\n*** Move to: docs/b.md  \n@@\n-a\n+b\n*** End Patch\n"
    assert patch_paths(patch) == ["docs/a.md", "docs/b.md", "docs/b.md  "]


def test_a_trailing_character_rust_does_not_trim_is_kept_in_one_reading() -> None:
    assert patch_paths("*** Add File: a.md\x1f\n") == ["a.md", "a.md\x1f"]


def test_text_without_a_marker_names_nothing() -> None:
    assert patch_paths("") == [] and patch_paths("***Add File: x\n** Add File: y\n*** Add File: \n") == []
