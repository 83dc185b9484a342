"""A local state file under `.brain/` (or an agent's settings file) that is a FIFO is never waited on.

Each reader takes it as the file that does not read, with its own fallback (no records, no keys, nothing
known, an empty state, a refusal naming the file); before, a plain `read_text` blocked on the FIFO for ever.
Each call runs in a thread given a few seconds; one that blocks is let go (the FIFO opened for writing) and fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.agent_settings import codex, files, sandbox
from brain_tui.core.brain import Brain, CloseRequest, OpenRequest
from brain_tui.core.errors import InvalidData
from brain_tui.core.paths.layout import (
    JOURNAL_DIR,
    JOURNAL_MANIFEST,
    LAUNCH_DIR,
    NOTIFIED_FILE,
    SANDBOX_RECORD,
    STATE_DIR,
    SYNC_STATE_FILE,
)
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.records import journal
from brain_tui.core.sessions import launch
from brain_tui.core.sessions.notify import NotifiedLog
from brain_tui.core.sync import remote_state

#: How long a reader may take before it counts as blocked.
PATIENCE_S = 5.0


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _answer(call: Callable[[], Any], fifo: Path) -> Any:
    """What `call` returns (or raises), or a test failure when it is still running after `PATIENCE_S`."""
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome.append((False, exc))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(PATIENCE_S)
    if worker.is_alive():  # let the blocked reader go (it reads an empty file) before failing
        for _ in range(20):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            worker.join(0.2)
            if not worker.is_alive():
                break
        pytest.fail(f"the reader blocked on the FIFO {fifo.name}")
    done, value = outcome[0]
    if not done:
        raise value
    return value


def _brain(tmp_path: Path) -> Path:
    root = tmp_path / "brain"
    (root / STATE_DIR).mkdir(parents=True)
    return root


# -- the readers of one state file, each with the fallback its caller takes --------------------------
def _launch_records(root: Path) -> None:
    fifo = _fifo(root / LAUNCH_DIR / "sess-20261129-0900-aaaa.json")
    assert _answer(lambda: launch.read_records(root), fifo) == []


def _notified_read(root: Path) -> None:
    fifo = _fifo(root / STATE_DIR / NOTIFIED_FILE)
    assert _answer(NotifiedLog(root).read, fifo) == []


def _notified_claim(root: Path) -> None:
    fifo = _fifo(root / STATE_DIR / NOTIFIED_FILE)
    assert _answer(lambda: NotifiedLog(root).claim(["a", "b"]), fifo) == ["a", "b"]


def _sandbox_recorded(root: Path) -> None:
    fifo = _fifo(root / SANDBOX_RECORD)
    assert _answer(lambda: sandbox.recorded(root, root / ".claude" / "settings.json"), fifo) is None


def _sandbox_remember(root: Path) -> None:
    fifo = _fifo(root / SANDBOX_RECORD)
    _answer(lambda: sandbox.remember(root, root / ".claude" / "settings.json", ["sandbox.enabled"]), fifo)
    assert json.loads((root / SANDBOX_RECORD).read_text()) == {".claude/settings.json": ["sandbox.enabled"]}


def _sync_read(root: Path) -> None:
    fifo = _fifo(root / STATE_DIR / SYNC_STATE_FILE)
    assert _answer(lambda: remote_state.read_state(root), fifo) == {}


def _sync_record(root: Path) -> None:
    fifo = _fifo(root / STATE_DIR / SYNC_STATE_FILE)
    stamp = "2026-11-29T09:00:00+00:00"
    assert _answer(lambda: remote_state.record(root, stamp, pending=True), fifo) == stamp
    assert json.loads((root / STATE_DIR / SYNC_STATE_FILE).read_text()) == {"pending_since": stamp}


def _journal_manifest(root: Path) -> None:
    """The manifest turned into a FIFO after `journal_pending` saw a file (the stat and the read are two steps)."""
    fifo = _fifo(root / STATE_DIR / JOURNAL_DIR / JOURNAL_MANIFEST)
    real = journal.journal_pending
    journal.journal_pending = lambda _root: True  # type: ignore[assignment]
    try:
        assert _answer(lambda: journal.recover(root), fifo) is None  # a manifest that does not read: dropped
    finally:
        journal.journal_pending = real
    assert not (root / STATE_DIR / JOURNAL_DIR).exists()


def _journal_backup(root: Path) -> None:
    """A write over a path that is a FIFO saves no bytes of it: it counts as absent, as any path no regular file."""
    fifo = _fifo(root / "notes" / "pipe.md")
    entry = _answer(lambda: journal.begin(root, ["notes/pipe.md"], "m", git=False), fifo)
    assert entry.backups == {"notes/pipe.md": None}
    entry.finish()


def _agent_settings(root: Path) -> None:
    fifo = _fifo(root / ".claude" / "settings.json")
    with pytest.raises(InvalidData, match=r"settings\.json cannot be read: not a regular file"):
        _answer(lambda: files.load(fifo), fifo)


@pytest.mark.parametrize("reader", [
    _launch_records, _notified_read, _notified_claim, _sandbox_recorded, _sandbox_remember, _sync_read,
    _sync_record, _journal_manifest, _journal_backup, _agent_settings,
], ids=lambda reader: reader.__name__.strip("_"))
def test_a_state_file_that_is_a_fifo_is_not_waited_on(tmp_path: Path, reader: Callable[[Path], None]) -> None:
    reader(_brain(tmp_path))


def test_a_codex_config_that_is_a_fifo_is_refused_not_waited_on(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    fifo = _fifo(tmp_path / "codex" / "config.toml")
    with pytest.raises(InvalidData, match=r"config\.toml cannot be read: not a regular file"):
        _answer(lambda: codex.mcp_install(_brain(tmp_path)), fifo)


def test_agent_settings_that_are_a_folder_keep_their_refusal(tmp_path: Path) -> None:
    folder = tmp_path / "settings.json"
    folder.mkdir()
    with pytest.raises(InvalidData, match=r"settings\.json cannot be read: Is a directory"):
        files.load(folder)


def test_an_offline_write_with_a_fifo_sync_state_is_not_waited_on(brain: Path) -> None:
    """A write through `Brain` in offline mode records its pending push in `.brain/sync.json` (`remote_state`)."""
    fifo = _fifo(brain / STATE_DIR / SYNC_STATE_FILE)
    b = Brain(brain, sync="offline")
    request = OpenRequest(scope=parse_scope("docs/"), ttl=timedelta(hours=2), instance=b.instance, slug="fifo")
    sess_id = _answer(lambda: b.open_claim(request), fifo)
    assert (brain / "claims" / f"{sess_id}.yml").is_file()
    state = json.loads((brain / STATE_DIR / SYNC_STATE_FILE).read_text())
    assert isinstance(state.get("pending_since"), str)


def test_a_no_commit_write_with_a_fifo_sync_state_is_not_waited_on(brain: Path) -> None:
    fifo = _fifo(brain / STATE_DIR / SYNC_STATE_FILE)
    b = Brain(brain, commit=False)
    request = OpenRequest(scope=parse_scope("docs/"), ttl=timedelta(hours=2), instance=b.instance, slug="nocm")
    sess_id = _answer(lambda: b.open_claim(request), fifo)
    assert (brain / "claims" / f"{sess_id}.yml").is_file()
    assert _answer(lambda: b.remote.status().pending_since, fifo) is None


def test_a_closed_set_rows_file_that_is_a_fifo_is_not_waited_on(brain: Path) -> None:
    """The 30-day window of closed claims (the index, a write's snapshot) reads the rows file down to its first
    older close: a FIFO there reads as no rows, as an unreadable one does."""
    from brain_tui.core.records.statuses import BLOCKING_STATUSES

    b = Brain(brain)
    closed = b.open_claim(OpenRequest(scope=parse_scope("docs/"), ttl=timedelta(hours=2), instance=b.instance,
                                      slug="done"))
    b.close_claim(closed, CloseRequest(status="ok"))
    b.snapshot()  # the closed set and its rows file are stored
    rows = sorted((brain / STATE_DIR).glob("closed-set-*.txt"))
    assert rows
    for path in rows:
        path.unlink()
        os.mkfifo(path)
    fresh = Brain(brain)
    snap = _answer(lambda: fresh.snapshot(BLOCKING_STATUSES, closed_since=fresh.now() - timedelta(days=30)), rows[0])
    assert closed not in {c.sess_id for c in snap.claims if c.status == "open"}
    request = OpenRequest(scope=parse_scope("notes/"), ttl=timedelta(hours=2), instance=b.instance, slug="next")
    opened = _answer(lambda: fresh.open_claim(request), rows[0])
    assert (brain / "claims" / f"{opened}.yml").is_file()
