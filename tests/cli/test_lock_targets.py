"""A lock names one file (SPEC 9, `bsi lock acquire FILE`): a folder is refused, never locked as a file.

A lock of ``notes/`` would be the file ``notes`` to every other reader: ``lock check notes/a.md`` free,
another session's preflight of ``notes/a.md`` go. So a path naming an existing folder, or written with a
trailing slash, is invalid data (65), and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import INHERITED_ENV, bsi_at, run_bsi

NOW = "2026-11-29T10:00:00Z"
A = "sess-20261129-1000-alfa"

bsi = bsi_at(NOW, env=INHERITED_ENV, timeout=None)


@pytest.fixture
def brain(tmp_path: Path) -> Path:
    root = tmp_path / "brain"
    proc = run_bsi("init", str(root), now=None, env=INHERITED_ENV, timeout=None)
    assert proc.code == 0, proc.err
    proc = bsi(root, "claim", "open", "--scope", "alfa/", "--ttl", "8h", "--slug", "alfa")
    assert proc.code == 0, proc.err
    (root / "alfa" / "sub").mkdir(parents=True)
    (root / "alfa" / "sub" / "a.md").write_text("a\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("target", ["alfa/sub", "alfa/sub/", "./alfa//sub", "alfa/new/"])
def test_a_folder_is_refused_with_65_and_nothing_written(brain: Path, target: str) -> None:
    proc = bsi(brain, "lock", "acquire", target, A)
    assert proc.code == 65, (proc.code, proc.out, proc.err)
    assert len(proc.err.strip().splitlines()) == 1, proc.err
    assert "folder" in proc.err
    assert sorted(p.name for p in (brain / "locks").iterdir() if p.name != ".gitkeep") == []


def test_a_file_is_still_locked(brain: Path) -> None:
    proc = bsi(brain, "lock", "acquire", "alfa/sub/a.md", A)
    assert proc.code == 0, proc.err
    assert bsi(brain, "lock", "check", "alfa/sub/a.md").code == 1
