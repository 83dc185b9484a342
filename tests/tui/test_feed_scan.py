"""The live feed's safety-net stat scan costs what the cockpit holds, not the history in ``claims/``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from brain_tui.tui.feed import changed_names, fingerprint

from .conftest import fresh


def _held(root: Path) -> list[str]:
    return [claim.path for claim in fresh(root).snapshot().claims]


def test_the_scan_stats_only_the_held_claim_files(demo_root: Path) -> None:
    held = _held(demo_root)
    history = demo_root / "claims" / "sess-20200101-0000-old-history.yml"
    history.write_text("not read by the scan\n", encoding="utf-8")
    seen = fingerprint(demo_root, held[:1])
    claim_names = {name for name in seen if name.startswith("claims/")}
    assert claim_names == {held[0]}  # neither the other claim files nor the history file
    assert "claims" in seen  # the folder's own stat stands for additions and removals
    assert "claims/sess-20200101-0000-old-history.yml" in fingerprint(demo_root)  # the full scan lists all


def test_an_in_place_edit_of_a_held_file_is_a_change(demo_root: Path) -> None:
    held = _held(demo_root)
    before = fingerprint(demo_root, held)
    path = demo_root / held[0]
    st = path.stat()
    path.write_bytes(path.read_bytes().replace(b"status:", b"status:", 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert changed_names(before, fingerprint(demo_root, held)) == (held[0],)


def test_an_added_claim_file_moves_the_folder_and_a_newly_held_one_is_no_change(demo_root: Path) -> None:
    held = _held(demo_root)
    before = fingerprint(demo_root, held[1:])
    assert changed_names(before, fingerprint(demo_root, held)) == ()  # the held set grew: nothing changed
    claims = demo_root / "claims"
    st = claims.stat()
    (claims / "sess-20261129-1200-new.yml").write_text("status: open\n", encoding="utf-8")
    os.utime(claims, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # coarse clocks: the move is seen
    assert changed_names(before, fingerprint(demo_root, held)) == ("claims",)


def test_a_restat_asked_during_a_read_is_taken_after_it_not_beside_it(demo_root: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.tui import feed as feed_module

    order: list[str] = []

    class App:
        """Runs a thread worker at once, in this thread; keeps the messages."""

        def run_worker(self, work: Any, **_kwargs: Any) -> None:
            order.append("worker")
            work()

        def post_message(self, message: Any) -> None:
            order.append(type(message).__name__)

    live = feed_module.LiveFeed(App(), fresh(demo_root))  # type: ignore[arg-type]
    real_read = feed_module.steady_read

    def reading(brain: Any) -> Any:
        order.append("read")
        live.restat()  # the watcher's restat arrives while the read runs
        return real_read(brain)

    monkeypatch.setattr(feed_module, "steady_read", reading)
    monkeypatch.setattr(live, "_take_fingerprint", lambda: order.append("fingerprint"))
    live.request()
    assert order == ["worker", "read", "SnapshotLoaded", "fingerprint"]
    live.restat()  # no read under way: at once, in its worker
    assert order[-2:] == ["worker", "fingerprint"]


def test_a_commit_alone_is_a_change(demo_root: Path) -> None:
    """In force is what git holds: the scan (the watcher's fallback) sees HEAD move with no brain file changed."""
    import subprocess

    held = _held(demo_root)
    before = fingerprint(demo_root, held)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "elsewhere"], cwd=demo_root, check=True)
    changed = changed_names(before, fingerprint(demo_root, held))
    assert str(demo_root.resolve() / ".git" / "refs" / "heads" / "main") in changed
