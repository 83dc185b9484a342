"""Hostile command-line values get one line and SPEC 19's exit code, and leave the brain as it was (SPEC 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.conftest import tree_bytes


@pytest.mark.parametrize("args", [
    ("claim", "show", "{id}\n"),
    ("claim", "renew", "{id}\n"),
    ("preflight", "fail", "{id}\n"),
    ("lock", "acquire", "src/a.py", "{id}\n"),
])
def test_an_id_with_a_trailing_newline_is_an_invalid_id(brain: Path, args: tuple[str, ...]) -> None:
    # `$` in a Python pattern also matches before a final newline: such an ID read as valid, then as not found,
    # and the message ran over two lines
    sess_id = ok(run_bsi("claim", "open", "--scope", "src/", brain=brain))
    before = tree_bytes(brain)
    done = run_bsi(*(a.format(id=sess_id) for a in args), brain=brain)
    assert done.code == 65, done
    assert done.err.count("\n") == 1 and done.err.startswith("bsi: ") and "invalid" in done.err
    assert tree_bytes(brain) == before


@pytest.mark.parametrize("args", [
    ("lock", "acquire", "src/caf\udcc3.py", "{id}"),
    ("lock", "check", "src/\udcff\udcfe.py"),
    ("hooks", "install", "--bsi", "bsi\udcc3"),
    ("mcp", "install", "--bsi", "bsi\udcc3", "--no-check"),
    ("--json", "claim", "open", "--scope", "src/\udcc3"),
])
def test_an_argument_that_is_not_utf8_is_invalid_data(brain: Path, args: tuple[str, ...]) -> None:
    # bytes that are not UTF-8 reach Python as lone surrogates: they failed as an internal error (70) on encoding
    sess_id = ok(run_bsi("claim", "open", "--scope", "src/", brain=brain))
    before = tree_bytes(brain, ("claims", "signals", "locks", ".claude"))
    done = run_bsi(*(a.format(id=sess_id) for a in args), brain=brain, process=True)
    assert done.code == 65, done
    assert done.err.count("\n") == 1 and done.err.startswith("bsi: ") and "not UTF-8" in done.err
    assert "Traceback" not in done.err and "internal error" not in done.err
    assert tree_bytes(brain, ("claims", "signals", "locks", ".claude")) == before


@pytest.mark.parametrize("args", [("lint", "x" * 10_000), ("init", "{parent}/" + "x" * 10_000),
                                  ("demo", "{parent}/" + "d" * 300)])
def test_a_name_too_long_for_the_file_system_is_invalid_data(brain: Path, args: tuple[str, ...]) -> None:
    # ENAMETOOLONG from the file system was an internal error (70)
    before = tree_bytes(brain)
    done = run_bsi(*(a.format(parent=brain.parent) for a in args), brain=brain)
    assert done.code == 65, done
    assert done.err.count("\n") == 1 and "name too long" in done.err and "internal error" not in done.err
    assert len(done.err) < 400
    assert tree_bytes(brain) == before
