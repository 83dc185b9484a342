"""Every parameter a docstring's `Args:` section names is one the function takes (no stale argument)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import brain_tui

#: One entry of an `Args:` section: its indented name, then a colon (`name:`, `*args:`, `name (type):`).
_ENTRY = re.compile(r"^(\s*)\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?:(?:\s|$)")
_SECTION = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")


def documented_args(doc: str) -> list[str]:
    """The names listed in the `Args:` section of a Google-style docstring (its first indentation level)."""
    names: list[str] = []
    lines = doc.expandtabs().splitlines()
    for index, line in enumerate(lines):
        if line.strip() not in ("Args:", "Arguments:", "Parameters:"):
            continue
        indent = None
        for entry in lines[index + 1:]:
            if not entry.strip():
                continue
            width = len(entry) - len(entry.lstrip())
            if width <= len(line) - len(line.lstrip()) or _SECTION.match(entry) and indent is None:
                break
            match = _ENTRY.match(entry)
            if indent is None:
                indent = width
            if width == indent and match:
                names.append(match.group(2))
            elif width < indent:
                break
    return names


def stale_args(source: str) -> list[tuple[int, str, str]]:
    """(line, function, name) for each documented argument the function does not take."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc = ast.get_docstring(node)
        if not doc:
            continue
        a = node.args
        taken = {arg.arg for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        taken |= {arg.arg for arg in (a.vararg, a.kwarg) if arg is not None}
        found += [(node.lineno, node.name, name) for name in documented_args(doc) if name not in taken]
    return found


def test_the_reader_sees_a_stale_argument() -> None:
    source = '''
def widget(rows, *, theme=None, **extra):
    """Draw.

    Args:
        rows: the rows,
            over two lines: not an entry.
        palette: gone.
        theme: the theme.
        extra: the rest.

    Returns:
        nothing: not an argument.
    """
'''
    assert stale_args(source) == [(2, "widget", "palette")]


def test_no_docstring_documents_an_argument_its_function_does_not_take() -> None:
    package = Path(brain_tui.__file__).parent
    stale = [f"{path.relative_to(package)}:{line} {func}({name})"
             for path in sorted(package.rglob("*.py"))
             for line, func, name in stale_args(path.read_text(encoding="utf-8"))]
    assert stale == []
