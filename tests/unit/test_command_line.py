"""The hook and the MCP server read their command line with one helper (`core.command_line`)."""

from __future__ import annotations

import pytest

from brain_tui.core.command_line import split_flags


def test_flags_take_their_value_either_way_and_positionals_keep_their_order() -> None:
    assert split_flags(["--brain", "/b", "hook", "--now=T", "stop"], ("--brain", "--now")) == (
        {"brain": "/b", "now": "T"}, ["hook", "stop"])
    assert split_flags(["--json", "mcp"], ("--brain",), ("--json",)) == ({}, ["mcp"])


@pytest.mark.parametrize(("argv", "message"), [(["--brain"], "--brain needs a value"),
                                               (["--jsn", "hook"], "unknown flag '--jsn'")])
def test_a_missing_value_or_an_unknown_flag_is_refused(argv: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        split_flags(argv, ("--brain",), ("--json",))
