"""`bsi log` orders commits by the instant they were made, whatever offset each carries."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from brain_tui.core.sync.audit import claim_log


def _commit(root: Path, text: str, date: str) -> None:
    (root / "claims" / "sess-a.yml").write_text(text, encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x"}
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", text], cwd=root, check=True, env=env)


def test_commits_made_under_other_offsets_come_newest_first(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "claims").mkdir()
    # 08:00Z from a machine at +02:00, then 09:30Z from one at UTC: text order would put the first on top.
    _commit(tmp_path, "first", "2026-12-05T10:00:00+02:00")
    _commit(tmp_path, "second", "2026-12-05T09:30:00+00:00")
    assert [e.message for e in claim_log(tmp_path)] == ["second", "first"]
    assert [e.message for e in claim_log(tmp_path, "sess-a")] == ["second", "first"]
