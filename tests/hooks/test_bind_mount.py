"""The brain seen through a second path that no symlink shows (a bind mount, a second mount of one disk) is the
same brain: a bound session's write through it is its claim's write, checked by the preflight, not an unbound
write into "another brain" (SPEC 10, 20.2). Needs the right to mount (root on Linux); skipped elsewhere."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


@pytest.fixture
def mounted(brain: Path, tmp_path: Path) -> Iterator[Path]:
    """`brain` bind-mounted at another path."""
    other = tmp_path / "mnt"
    other.mkdir()
    mount = shutil.which("mount")
    if mount is None:
        pytest.skip("no mount command")
    done = subprocess.run([mount, "--bind", str(brain), str(other)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield other
    finally:
        subprocess.run(["umount", str(other)], capture_output=True, check=False)


def test_a_write_through_a_bind_mount_of_the_brain_is_checked_as_the_brains(brain: Path, mounted: Path) -> None:
    (brain / "real").mkdir()
    sess = ok(run_bsi("claim", "open", "--scope", "real/", "--agent-session", AGENT, "--slug", "mine", brain=brain))
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", str(mounted / "real" / "x.md"))))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(mounted / "free.md"))), "scope violation",
                  sess)
    assert_denied(hook(None, "pre-tool-use", event(mounted, "Edit", str(brain / "free.md")), cwd=mounted),
                  "scope violation", sess)
    ok(run_bsi("gate", "pause", sess, "stop", brain=brain))
    for path in (mounted / "real" / "x.md", mounted / "free.md"):
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(path))), "paused")


def test_gits_program_files_through_a_bind_mount_are_denied(brain: Path, mounted: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "*", "--agent-session", AGENT, "--slug", "all", brain=brain))
    for rel in (".git/hooks/pre-commit", ".git/config"):
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(mounted / rel))), "programs git runs")
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(mounted / rel), session="nobody")),
                      "programs git runs")
