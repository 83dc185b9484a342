"""A session holding `##` sections of a markdown file writes inside them only (SPEC 5.2: two sections of one file
are two scopes; SPEC 10, 20.2: each session writes its own).

The write decision asks this rule once the preflight let a bound session's write of a file go, when the session's
claim covers that file by section entries only. The file as the tool would leave it is computed from the tool's
input (`text_after`: Write, Edit, MultiEdit and their Gemini spellings, a Codex patch updating that one file whose
lines match it exactly: `patch_result`); cut into parts by `md_sections`, the text
outside the held sections (the text before the first heading, every other section, every heading no scope names)
must stay exactly as it is, in the same order, and each held section must appear at most once, before and after;
a code fence it leaves open (one that would hide the headings below it) is refused, and so is an HTML block it
leaves open over another part's heading (`Part.hidden`: a comment never closed, a tag line with no blank line after).
So neither another session's section, nor its heading (renaming it would leave that claim naming no section), nor
the text nobody holds changes; a new heading (a section nobody holds, or a second of a held one) is refused too.
A write whose result cannot be known (a shell command, a notebook tool, another server's tool, a patch that moves,
adds, deletes or matches loosely, an edit that does not apply) is refused for such a file: claim the whole file to
write it that way. So is an interpreter's code on a shell line that writes and names the file in a string
(`held_by_sections`; `python3 -c "open('plan.md','a')…"`, `node -e`, code on standard input): the OS sandbox opens
a section's file whole to the shell.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from brain_tui.core.errors import PreflightRefused
from brain_tui.core.paths.md_sections import read
from brain_tui.core.paths.scope import SECTION, ScopeEntry, covers_file
from brain_tui.core.rules.preflight_codes import SCOPE_VIOLATION
from brain_tui.core.rules.write_request import ToolWrite

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any

    from brain_tui.core.records.model import BrainSnapshot

__all__ = ["held_by_sections", "held_sections", "other_spelling", "section_refusal", "text_after"]

_WRITES = ("Write", "write_file")
_EDITS = ("Edit", "replace")
_PATCHES = ("apply_patch", "ApplyPatch")


def held_sections(scope: tuple[ScopeEntry, ...] | list[ScopeEntry], rel: str, root: str | os.PathLike[str]) \
        -> set[str] | None:
    """The section keys of `rel` the scope holds when it covers that file by sections only; None when another
    entry (global, a folder, the file) covers it whole, or none covers it."""
    if covers_file([e for e in scope if e.kind != SECTION], rel, root):
        return None
    held = {e.section_key for e in scope if e.kind == SECTION and covers_file([e], rel, root)}
    return held or None


def held_by_sections(snapshot: BrainSnapshot, bound: list[str], rel: str, root: str | os.PathLike[str]) -> bool:
    """True when one of the `bound` claims holds `rel` by sections only (`held_sections`): a path an interpreter's
    code that writes names (`ShellReading.in_code`) is then judged as a write of it, which this rule refuses (its
    result unknown), since the OS sandbox opens such a file whole to the shell."""
    claims = (snapshot.claim(sess_id) for sess_id in bound)
    return any(held_sections(claim.scope, rel, root) is not None for claim in claims if claim is not None)


def _apply(text: str, old: object, new: object, every: bool) -> str | None:
    """One replacement as an edit tool makes it; None when it does not apply (the tool then fails, or the result
    is unknown)."""
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    if old == "":
        return new if text == "" else None  # the tool creates a file; into an existing one it is refused
    if old in text:
        if not every and text.count(old) > 1:
            return None
        return text.replace(old, new) if every else text.replace(old, new, 1)
    if "\r\n" in text:  # the tool matches a CRLF file's lines by their "\n" spelling and keeps its endings
        done = _apply(text.replace("\r\n", "\n"), old.replace("\r\n", "\n"), new.replace("\r\n", "\n"), every)
        return None if done is None else done.replace("\n", "\r\n")
    return None


def text_after(tool: str, tool_input: Mapping[str, Any], before: str) -> str | None:
    """The file's text once `tool` ran with `tool_input` on `before`; None when it cannot be known."""
    if tool in _WRITES:
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    if tool in _EDITS:
        count = tool_input.get("expected_replacements")
        every = tool_input.get("replace_all") is True or (isinstance(count, int) and count > 1)
        return _apply(before, tool_input.get("old_string"), tool_input.get("new_string"), every)
    if tool in _PATCHES:
        given = [tool_input.get(key) for key in ("patch", "input", "command") if key in tool_input]
        if len(given) != 1 or not isinstance(given[0], str):
            return None  # two texts: which one Codex applies is unknown
        from brain_tui.core.rules.patch_result import patched_text

        return patched_text(given[0], before)
    if tool == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list) or not edits:
            return None
        text: str | None = before
        for one in edits:
            if text is None or not isinstance(one, dict):
                return None
            text = _apply(text, one.get("old_string"), one.get("new_string"), one.get("replace_all") is True)
        return text
    return None


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError):
        return None


def other_spelling(root: Path, rel: str) -> str | None:
    """The brain-relative spelling of the file `rel` names on a case-insensitive disk, when `rel` is not there as
    written but another spelling is (`path_key`): on Linux a write of it would make a second file, which a checkout
    on such a disk reads as the first."""
    from brain_tui.core.paths.path_keys import path_key

    if (root / rel).exists() or (root / rel).is_symlink():
        return None
    found = root
    for name in rel.split("/"):
        if (found / name).exists():
            found = found / name
            continue
        try:
            same = [entry for entry in os.listdir(found) if path_key(entry) == path_key(name)]
        except OSError:
            return None
        if not same:
            return None
        found = found / same[0]
    return found.relative_to(root).as_posix()


def section_refusal(root: str | os.PathLike[str], sess_id: str, scope: tuple[ScopeEntry, ...] | list[ScopeEntry],
                    rel: str, edit: ToolWrite | None) -> PreflightRefused | None:
    """Why `sess_id` (its claim's `scope`) may not make this write of `rel` (brain-relative), or None.

    `edit`: the agent tool about to write, with its input; None for a write whose text is not shown (the shell).
    """
    held = held_sections(scope, rel, root)
    if held is None:
        return None
    names = ", ".join(sorted(str(e) for e in scope if e.kind == SECTION and e.section_key in held))

    def refuse(why: str) -> PreflightRefused:
        return PreflightRefused(SCOPE_VIOLATION, f"scope violation: {rel}: {sess_id} holds the section {names} "
                                f"only, and {why}", {"sess_id": sess_id, "file": rel, "check": "section"})

    spelled = other_spelling(Path(root), rel)
    if spelled is not None:
        return refuse(f"it is {spelled} spelled another way: on a case-insensitive disk they are one file, so write "
                      f"{spelled}")
    before = _read(Path(root) / rel)
    if before is None:
        return refuse("the file does not read as UTF-8 text, so its sections cannot be told apart")
    after = text_after(edit.tool, edit.tool_input, before) if edit is not None else None
    if after is None:
        return refuse("what this write leaves in the file cannot be known (a shell command, a notebook tool, a "
                      "patch that moves, adds or deletes the file or whose lines do not match it exactly, an edit "
                      "that does not apply as given): change the section with the Edit or Write tool or a patch "
                      "of it alone, or work under a claim on the whole file")
    (after_parts, after_open), (before_parts, before_open) = read(after), read(before)
    if after_open and not before_open:
        return refuse("this write leaves a code fence open, which hides every heading below it from a markdown "
                      "reader: close the fence")
    cut = {"before": before_parts, "after": after_parts}
    for when, found in cut.items():
        twice = sorted(key for key, n in Counter(p.key for p in found if p.key in held).items() if n > 1)
        if twice:
            return refuse(f"{when} this write the file holds that heading more than once, so which one is held is "
                          "unknown: a human renames one")
    if [p.text for p in cut["before"] if p.key not in held] != [p.text for p in cut["after"] if p.key not in held]:
        return refuse("this write changes text outside it (another section, a heading, the text before the first "
                      "heading, or a new heading): change only the lines under its own `##` heading")
    if [p.hidden for p in cut["before"] if p.key not in held] != [p.hidden for p in cut["after"] if p.key not in held]:
        return refuse("this write leaves an HTML block open (a comment, a tag) over a heading below it, which a "
                      "markdown reader then shows as raw HTML or not at all: close it inside the section (`-->`, "
                      "its closing tag, a blank line)")
    return None
