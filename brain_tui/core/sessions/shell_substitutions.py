"""Commands a shell command line hands to a shell inside itself, for the shell's reader (`shell_targets`): the
bodies of command substitutions (``$(…)``, backquotes, also inside double quotes) and process substitutions
(``<(…)``, ``>(…)``), and the text a shell reads as its script from standard input when the line itself shows it
(``bash <<< 'CMD'``, ``echo 'CMD' | sh``). They run as commands, so they are read as commands.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os

from brain_tui.core.sessions.shell_quotes import nested_end

__all__ = ["outside_substitutions", "past_closer", "piped_text", "reads_script_from_stdin", "substitutions"]

_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"})


def substitutions(text: str, here_document: bool = False) -> list[str]:
    """The bodies of the outermost command and process substitutions of `text` (outside single quotes), in
    order; an unclosed one runs to the end (the reader then reads what there is). `here_document`: `text` is the
    body of an unquoted here-document, read as inside double quotes whose quote characters are plain text."""
    return [text[start:end].replace("\\`", "`").replace("\\\\", "\\") if text[start - 1] == "`" else text[start:end]
            for start, end in _spans(text, here_document)]


def outside_substitutions(text: str) -> str:
    """`text` without the bodies of its outermost substitutions (``echo $(cd src)`` is ``echo $()``): what the
    shell reading it runs itself."""
    kept, last = [], 0
    for start, end in _spans(text):
        kept.append(text[last:start])
        last = end
    return "".join(kept) + text[last:]


def _spans(text: str, here_document: bool = False) -> list[tuple[int, int]]:
    """Where the bodies `substitutions` gives stand in `text` (start, end)."""
    found: list[tuple[int, int]] = []
    index = 0
    quote = '"' if here_document else ""
    while index < len(text):
        ch = text[index]
        if ch == "\\":
            index += 2
            continue
        if quote == "'":
            quote = "" if ch == "'" else quote
            index += 1
            continue
        if ch == "'" and not quote:
            quote = "'"
        elif quote and text.startswith("${", index):  # `"${x:-"…"}"`: its quotes start anew, its `$(…)` are read
            end = nested_end(text, index)
            found.extend((index + 2 + start, index + 2 + stop) for start, stop in _spans(text[index + 2:end - 1]))
            index = end
            continue
        elif ch == '"' and not here_document:
            quote = "" if quote == '"' else '"'
        elif ch == "`":
            end = index + 1
            while end < len(text) and text[end] != "`":
                end += 2 if text[end] == "\\" else 1
            found.append((index + 1, end))
            index = end + 1
            continue
        elif text.startswith(("$(", "<(", ">("), index) and not text.startswith("$((", index):
            end = _closing(text, index + 2)
            found.append((index + 2, end))
            index = end + 1
            continue
        index += 1
    return found


def _closing(text: str, index: int) -> int:
    """The index of the `)` that closes the substitution whose body starts at `index` (`nested_end`: quotes and
    nested parts skipped as bash skips them); the end of `text` when it is unclosed."""
    end = nested_end(text, index - 2)
    return end - 1 if text[end - 1:end] == ")" and end > index else len(text)


def past_closer(token: str, depth: int) -> tuple[int, str]:
    """The nesting left after the operator `token` (a token of the split line) read inside a substitution `depth`
    parentheses deep, and what follows the `)` closing it in the same token: ``);`` closes ``$(ls`` and leaves the
    line's ``;`` (the split line gives a closing parenthesis and the operator after it as one token)."""
    for position, ch in enumerate(token):
        depth += 1 if ch == "(" else -1 if ch == ")" else 0
        if depth == 0 and ch == ")":
            return 0, token[position + 1:]
    return depth, ""


def reads_script_from_stdin(words: list[str]) -> bool:
    """True when the command `words` (its wrappers passed over) is a shell reading its commands from standard
    input: no ``-c``, and no script file (or ``-s``: the operands are then its arguments)."""
    if not words or os.path.basename(words[0]) not in _SHELLS:
        return False
    from brain_tui.core.sessions.shell_options import options as _options

    operands, values, flags = _options(words[1:], {"-c", "-o", "-O"})
    return "-c" not in values and (not operands or "-s" in flags)


def piped_text(words: list[str]) -> str | None:
    """What `echo ARGS` or `printf FORMAT ARGS` (its wrappers passed over) writes to the next command of a
    pipeline, near enough to read as a script (`printf`'s ``\\n`` as a line end), or None for another command."""
    if not words or os.path.basename(words[0]) not in ("echo", "printf"):
        return None
    args = [arg for arg in words[1:] if not (words[0].endswith("echo") and arg in ("-n", "-e", "-E"))]
    text = " ".join(args)
    return text.replace("\\n", "\n") if words[0].endswith("printf") or "-e" in words else text
