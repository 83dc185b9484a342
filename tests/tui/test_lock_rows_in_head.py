"""The locks pane keeps one row per copy of a lock in force: a lock file edited by hand, uncommitted, is held
by both its committed copy and the work tree's (SPEC 22), and both show without a clash of row keys."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from brain_tui.core.brain import Brain
from brain_tui.tui.widgets.history import lock_rows
from tests.bsi import INHERITED_ENV, bsi_at, run_bsi

NOW = "2026-11-29T10:00:00Z"
A = "sess-20261129-1000-alfa"
B = "sess-20261129-1000-bravo"

bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)


def test_an_uncommitted_edit_shows_both_copies_with_distinct_keys(tmp_path: Path) -> None:
    root = tmp_path / "brain"
    assert run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None).code == 0
    assert bsi(root, "claim", "open", "--scope", "alfa/", "--slug", "alfa").code == 0
    assert bsi(root, "lock", "acquire", "alfa/x.md", A).code == 0
    path = root / "locks" / (quote("alfa/x.md", safe="") + ".yml")
    path.write_text(path.read_text(encoding="utf-8").replace(A, B), encoding="utf-8")
    snapshot = Brain(root, now=NOW).snapshot()
    assert sorted(lock.holder for lock in snapshot.locks) == [A, B]
    keys = [key for key, _cells in lock_rows(snapshot)]
    assert len(keys) == 2 and len(set(keys)) == 2
