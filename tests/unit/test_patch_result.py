"""The text a Codex patch leaves in the one file it updates (`patch_result`), or None where Codex's own answer is not
known for sure (a loose match, another file, a rename)."""

from __future__ import annotations

import pytest

from brain_tui.core.rules.patch_result import patched_text


def wrap(body: str) -> str:
    return f"*** Begin Patch\n*** Update File: f.md\n{body}*** End Patch\n"


@pytest.mark.parametrize(("before", "body", "after"), [
    ("a\nb\nc\n", "@@\n-b\n+B\n", "a\nB\nc\n"),
    ("a\nb\nc", "@@\n-b\n+B\n", "a\nB\nc\n"),  # Codex always ends the file with a newline
    ("x\nb\ny\nb\n", "@@ y\n-b\n+B\n", "x\nb\ny\nB\n"),  # the context line is found first
    ("b\nb\n", "@@\n-b\n+B\n", "B\nb\n"),  # the first match
    ("b\nb\n", "@@\n-b\n+B\n*** End of File\n", "b\nB\n"),  # an end-of-file chunk matches at the end
    ("a\n", "@@\n+z\n", "a\nz\n"),  # no old lines: added at the end
    ("a\nb\n", "@@\n-a\n+A\n@@\n-b\n+B\n", "A\nB\n"),  # two chunks
    ("a\r\nb\r\n", "@@\n-b\r\n+B\r\n", "a\r\nB\n"),  # a CRLF of the patch's lines is dropped: b\r matches none
])
def test_a_patch_is_applied_as_codex_applies_it(before: str, body: str, after: str | None) -> None:
    if before.startswith("a\r"):
        assert patched_text(wrap(body), before) is None
        return
    assert patched_text(wrap(body), before) == after


@pytest.mark.parametrize("patch", [
    wrap("@@\n-b \n+B\n"),  # Codex would match `b` ignoring the space
    wrap("@@ nowhere\n-b\n+B\n"),
    wrap("@@\n-b\n+B\n*** Update File: g.md\n@@\n-x\n+y\n"),  # two files
    wrap("*** Move to: g.md\n@@\n-b\n+B\n"),
    "*** Begin Patch\n*** Add File: f.md\n+b\n*** End Patch\n",
    "*** Begin Patch\n*** Delete File: f.md\n*** End Patch\n",
    "*** Begin Patch\n*** Update File: f.md\n@@\n-b\n+B\n",  # no end
    wrap("@@\n-b\n+B\nstray\n"),
    wrap("@@\n-b\n+B\n\n"),  # an empty line is context: `b` then "" does not match; Codex retries loosely first
])
def test_what_is_not_known_for_sure_is_none(patch: str) -> None:
    assert patched_text(patch, "a\nb\nc\n") is None
