"""Brain text inside a hook message or an MCP result: facts, short, inert (SPEC 15, DESIGN 7).

What an agent reads from a hook is context for a model. Claim and signal
text comes from other sessions and is hostile: it is cut short, its control,
bidi and zero-width characters are shown as visible placeholders (``⟨ESC⟩``,
``⟨U+202E⟩``; the set is core/paths/text_safety.py's, as on the cockpit's screen)
and newlines are folded, so it can neither hide text, nor
fake a line of the message, nor reach a terminal as an escape sequence.
"""

from __future__ import annotations

from brain_tui.core.paths.text_safety import ELLIPSIS, fold_placeholder, inert_line

#: The names the hooks use: one placeholder per character, one inert line per fact.
placeholder = fold_placeholder
fact = inert_line

__all__ = ["ELLIPSIS", "fact", "placeholder"]
