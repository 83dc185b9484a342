"""Reading a `bsi` command line without argparse, for the front doors that start fast (the hook, the MCP server).

Pure: no file, no environment, no clock. Imports nothing of the product.
"""

from __future__ import annotations

from collections.abc import Sequence


def split_flags(argv: Sequence[str], value_flags: Sequence[str],
                bare_flags: Sequence[str] = ()) -> tuple[dict[str, str], list[str]]:
    """The flags of `argv` (``--name V`` or ``--name=V``) by name without dashes, and its positionals in order.

    Args:
        argv: the words after the program.
        value_flags: the flags that take a value.
        bare_flags: the flags that take none (accepted and dropped).

    Raises:
        ValueError: a value flag without its value, or a flag that is neither (the message names it).
    """
    flags: dict[str, str] = {}
    rest: list[str] = []
    items = list(argv)
    index = 0
    while index < len(items):
        arg = items[index]
        name, eq, value = arg.partition("=")
        if name in value_flags:
            if not eq:
                index += 1
                if index >= len(items):
                    raise ValueError(f"{name} needs a value")
                value = items[index]
            flags[name[2:]] = value
        elif arg in bare_flags:
            pass
        elif arg.startswith("-"):
            raise ValueError(f"unknown flag {arg[:40]!r}")
        else:
            rest.append(arg)
        index += 1
    return flags, rest


def not_utf8(argv: Sequence[str]) -> str | None:
    """The first word of `argv` whose bytes are not UTF-8 text, shown as its bytes (``b'caf\\xc3'``), else None.

    Python hands such bytes over as lone surrogates; the brain's names and text are UTF-8 (SPEC 13), so such a
    word is invalid data, never a path or a message to write.
    """
    for word in argv:
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:
            return repr(word.encode("utf-8", "surrogateescape"))[:80]
    return None
