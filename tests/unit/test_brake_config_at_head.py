"""`brake.set_to_sync_at_head` reads brain-compose.yml as the last commit holds it, when the work tree's copy does
not parse: a file an agent may have committed at any size. It reads no more of it than a brain-compose.yml can be
(`yamlio.MAX_FILE_BYTES`): a human's pause never waits on, nor runs out of memory over, a huge blob."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core.records.yamlio import MAX_FILE_BYTES
from brain_tui.core.sync import brake, gitops


def _repo(root: Path, text: str) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "brain-compose.yml").write_text(text, encoding="utf-8")
    for args in (["add", "brain-compose.yml"], ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit",
                                                 "-qm", "config"]):
        subprocess.run(["git", "-C", str(root), *args], check=True)


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes each git command run from here brought back."""
    sizes: list[int] = []
    real = gitops.run_git

    def counted(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        proc = real(*args, **kwargs)
        sizes.append(len(proc.stdout or ""))
        return proc

    monkeypatch.setattr(gitops, "run_git", counted)
    return sizes


def test_a_huge_committed_config_is_not_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _repo(tmp_path, "sync: auto\n" + ("# " + "x" * 1000 + "\n") * 300)
    sizes = _reads(monkeypatch)
    assert brake.set_to_sync_at_head(tmp_path) is False  # too large to be a brain-compose.yml: it names no mode
    assert sizes and max(sizes) <= MAX_FILE_BYTES


def test_a_committed_config_within_bounds_is_read(tmp_path: Path) -> None:
    _repo(tmp_path, "sync: auto\n")
    assert brake.set_to_sync_at_head(tmp_path) is True
