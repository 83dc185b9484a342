"""The commit messages bsi writes are brain text too (SPEC 11, 15): `git log` shows them as they are.

A lock names a file, and a file name may hold a bidi override or a zero-width character (a scope refuses only
controls). `bsi: lock acquire <file>` names that file with the product's placeholders, so `git log` neither
reorders nor hides part of the line; the lock itself still holds the file as given.
"""

from __future__ import annotations

from pathlib import Path

from brain_tui.core.paths.text_safety import placeholder
from tests.bsi import git, ok, run_bsi

FILE = "wiki/\u202ecod.exe\u202c\u200b[@click=app.quit].md"


def test_a_lock_on_a_file_with_hidden_characters_commits_an_inert_message(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "wiki/", brain=brain)).strip()
    ok(run_bsi("lock", "acquire", FILE, sess, brain=brain))
    message = git(brain, "log", "-1", "--format=%B")
    assert [ch for ch in message if ch != "\n" and placeholder(ch) is not None] == [], repr(message)
    assert "bsi: lock acquire wiki/⟨U+202E⟩cod.exe⟨U+202C⟩⟨U+200B⟩[@click=app.quit].md" in message
    held = run_bsi("--json", "lock", "check", FILE, brain=brain)  # the lock holds the file as given
    assert held.code == 1 and f'"file": "{FILE}"' in held.out and sess in held.out, held.out
    ok(run_bsi("lock", "release", FILE, sess, brain=brain))
    assert git(brain, "log", "-1", "--format=%s").startswith("bsi: lock release wiki/⟨U+202E⟩cod.exe")
