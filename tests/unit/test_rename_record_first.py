"""A rename sync makes is recorded before the commits are rewritten, and an agent's bindings are read through it:
a kill between the rewrite and the rewrite of the bindings leaves no agent bound to the old ID, which names the
other machine's claim once the rename landed (SPEC 4, 21.4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain_tui.core.paths.layout import AGENTS_DIR, RENAMED_FILE
from brain_tui.core.sessions import agent_files
from brain_tui.core.sessions.rebind import record_renames

OLD, NEW = "sess-20261129-1000-mine", "sess-20261129-1000-k3x9"
SESSION = "5b7c0d1e-2f3a-4b5c-8d6e-7f8091a2b3c4"


def test_bindings_left_on_the_old_id_are_read_as_the_new_one(tmp_path: Path) -> None:
    sessions = tmp_path / AGENTS_DIR / "sessions"
    sessions.mkdir(parents=True)
    (sessions / f"{SESSION}.json").write_text(json.dumps({"sess_ids": [OLD]}), encoding="utf-8")
    assert agent_files.bound_claims(tmp_path, SESSION) == [OLD]
    record_renames(tmp_path, {OLD: NEW})  # the rewrite of the bindings never ran (a kill)
    assert agent_files.bound_claims(tmp_path, SESSION) == [NEW]


def test_the_rename_is_recorded_before_the_commits_are_rewritten(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from brain_tui.core.facade_remote import BrainRemote
    from brain_tui.core.sync import remote_history

    seen: list[bool] = []

    def killed(root: Path, *_args: object) -> None:
        seen.append((root / AGENTS_DIR / RENAMED_FILE).is_file())
        raise KeyboardInterrupt  # stands for a kill -9 in the middle of the rewrite

    class FakeBrain:
        root = tmp_path

    monkeypatch.setattr(remote_history, "local_added_claims", lambda root, branch: [OLD])
    monkeypatch.setattr(remote_history, "remote_file", lambda root, branch, rel: "theirs" if OLD in rel else None)
    monkeypatch.setattr(remote_history, "file_at", lambda root, ref, rel: "mine")
    monkeypatch.setattr(remote_history, "rewrite_local", killed)
    remote = BrainRemote.__new__(BrainRemote)
    remote._brain = FakeBrain()  # type: ignore[assignment]
    remote._renamed = []
    with pytest.raises(KeyboardInterrupt):
        remote.before_integrate("main")
    assert seen == [True]
