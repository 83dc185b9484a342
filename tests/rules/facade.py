"""The rule suites' one way in: the `Brain` facade in this process, on the suites' clock (tests/bsi.py's NOW).

A rule table asks the core what `bsi` would decide, without the command line around it: `at` opens the
facade on a brain folder at a time, `open_in` opens a claim as `bsi claim open --scope …` would (the
scope read by the same `parse_scope_args`), `refused` catches the error a refusal raises (its
`exit_code` is the `bsi` exit code; tests/cli/test_contract.py holds the command line's side).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.brain import Brain, OpenRequest
from brain_tui.core.clock import parse_duration
from brain_tui.core.errors import BsiError, ConflictError
from brain_tui.core.paths.scope import parse_scope_args
from tests.bsi import NOW
from tests.conftest import tree_bytes


def at(root: Path, now: str = NOW) -> Brain:
    """The facade on `root` with its clock at `now` (`bsi --brain ROOT --now NOW`)."""
    return Brain(root, now=now)


def open_in(root: Path, *scopes: str, now: str = NOW, ttl: str | None = None, **fields: Any) -> str:
    """Open a claim on `scopes` (each one `--scope` value) and return its ID.

    Args:
        root: the brain.
        scopes: the `--scope` values.
        now: the clock.
        ttl: the `--ttl` value (None: the brain's default).
        fields: other `OpenRequest` fields (`slug`, `type`, `parent`, `satellite_type`, `level`, …).
    """
    brain = at(root, now)
    fields.setdefault("instance", brain.instance)
    req = OpenRequest(scope=parse_scope_args(list(scopes), brain.root),
                      ttl=parse_duration(ttl) if ttl else brain.config.ttl_default, **fields)
    return brain.open_claim(req)


def refused(call: Callable[[], object], code: int) -> BsiError:
    """Run `call`, which must raise the refusal of `bsi` exit `code`; return the error."""
    with pytest.raises(BsiError) as caught:
        call()
    assert caught.value.exit_code == code, (caught.value.exit_code, str(caught.value))
    return caught.value


def conflicts_of(error: BsiError) -> list[dict[str, Any]]:
    """The conflicts a refused open names (the `--json` payload of exit 10)."""
    assert isinstance(error, ConflictError)
    found: list[dict[str, Any]] = error.payload.get("conflicts", [])
    return found


def assert_second_name_refused(root: Path, held: str, asked: str) -> tuple[str, list[dict[str, Any]]]:
    """Open `held`, then `asked` from another session: refused (10) naming the holder, nothing written;
    `check_scope` agrees (tests/refusals.py is the same assertion through `bsi`).

    Returns:
        (the holder's session ID, the conflicts `check_scope` found, as their `as_dict()`).
    """
    holder = open_in(root, held, slug="first")
    before = tree_bytes(root)
    error = refused(lambda: open_in(root, asked, slug="second"), 10)
    assert [c["sess_id"] for c in conflicts_of(error)] == [holder]
    assert tree_bytes(root) == before
    brain = at(root)
    check = [c.as_dict() for c in brain.check_scope(parse_scope_args([asked], brain.root))]
    assert [c["sess_id"] for c in check] == [holder]
    return holder, check
