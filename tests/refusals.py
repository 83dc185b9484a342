"""One assertion the scope suites share: a second name for a held scope is refused everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.bsi import ok, run_bsi
from tests.conftest import tree_bytes


def assert_second_name_refused(brain: Path, held: str, asked: str) -> tuple[str, dict[str, Any]]:
    """Open `held`, then `asked` from another session: exit 10 naming the holder, nothing written; check-scope agrees.

    Returns:
        (the holder's session ID, the `check-scope --json` answer).
    """
    holder = ok(run_bsi("claim", "open", "--scope", held, "--slug", "first", brain=brain))
    before = tree_bytes(brain)
    run = run_bsi("--json", "claim", "open", "--scope", asked, "--slug", "second", brain=brain)
    assert run.code == 10, (run.out, run.err)
    assert [c["sess_id"] for c in run.json()["conflicts"]] == [holder]
    assert tree_bytes(brain) == before
    check = run_bsi("--json", "check-scope", asked, brain=brain)
    assert check.code == 10 and [c["sess_id"] for c in check.json()["conflicts"]] == [holder]
    return holder, check.json()
