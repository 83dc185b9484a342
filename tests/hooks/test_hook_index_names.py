"""The hook index's shortcut and file names the core reads otherwise: a glob character (`*`, `?`) the core's
path normalisation refuses, and a name an unbound write's scope reads as more than the file (`global`, a section
marker). The shortcut leaves them to the core, so it never lets through what the core refuses."""

from __future__ import annotations

import subprocess
from pathlib import Path

from brain_tui.core.paths.layout import HOOK_INDEX_FILE
from tests.bsi import ok, run_bsi
from tests.hooks.test_hook_index import settle
from tests.hooks.test_pre_tool_use import AGENT, assert_denied, event, hook

UNBOUND = "f00dfeed-0000-4000-8000-000000000000"


def refused(done: subprocess.CompletedProcess[str], word: str) -> None:
    """Denied (exit 2), the reason naming `word` (the core's "are not allowed" keeps `assert_denied` out)."""
    assert done.returncode == 2 and word in done.stderr, done


def test_a_glob_character_in_a_file_name_is_left_to_the_core(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", "--agent-session", AGENT, brain=brain))
    (brain / "brain-compose.yml").write_text("hooks:\n  unclaimed_writes: allow\n")
    settle(brain)
    for name in ("src/what?.md", "src/*.py"):  # in the bound claim's own scope
        refused(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / name))), "glob characters")
        assert (brain / HOOK_INDEX_FILE).exists()
    for name in ("free/x*.md", "free/why?.md"):  # held by no claim, unclaimed writes allowed
        unbound = event(brain, "Write", str(brain / name), session=UNBOUND)
        refused(hook(brain, "pre-tool-use", unbound), "glob characters")


def test_a_name_an_unbound_scope_reads_as_more_than_the_file_is_left_to_the_core(brain: Path) -> None:
    (brain / "notes").write_text("n\n")
    holder = ok(run_bsi("claim", "open", "--scope", "notes", "--story", "d", brain=brain))
    (brain / "brain-compose.yml").write_text("hooks:\n  unclaimed_writes: allow\n")
    settle(brain)
    for name in ("global", "notes#1.md", "notes§x"):  # the whole brain; a section of the claimed file `notes`
        unbound = event(brain, "Write", str(brain / name), session=UNBOUND)
        assert_denied(hook(brain, "pre-tool-use", unbound), holder)
