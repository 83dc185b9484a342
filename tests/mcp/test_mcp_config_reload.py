"""A long-lived `bsi mcp` decides a write on brain-compose.yml as it is now, not as it was at start.

The server's preflight (the hook's own decision, `Brain.decide_write`) read the
kernel zone and `kerneluser` from the configuration loaded at start: once a human
set `kerneluser: false`, a satellite's write in the kernel zone still went (exit 0
where `bsi preflight check` says 5, SPEC 10), and the hook index the server wrote
then carried the old setting under the new file's stat key, so the next
`bsi hook pre-tool-use` processes trusted it too.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from brain_tui.core.errors import PreflightRefused
from brain_tui.core.sessions import hook_index
from brain_tui.mcp import tools
from brain_tui.mcp.tools import Session, call
from tests.bsi import NOW, clean_env, git, ok, run_bsi
from tests.mcp.test_mcp_remote_unreachable import unreachable


def test_kerneluser_turned_off_under_a_running_server_refuses_a_kernel_write(brain: Path) -> None:
    config = brain / "brain-compose.yml"
    config.write_text("kerneluser: true\n", encoding="utf-8")
    subprocess.run(["git", "add", "brain-compose.yml"], cwd=brain, check=True)
    subprocess.run(["git", "commit", "-qm", "config"], cwd=brain, check=True, capture_output=True)
    pilot = ok(run_bsi("claim", "open", "--type", "pilote", "--scope", "agents/", brain=brain)).strip()
    sat = ok(run_bsi("claim", "open", "--parent", pilot, "--scope", "agents/x.md", brain=brain)).strip()
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    assert s.brain.preflight(sat, "agents/x.md").sess_id == sat  # the server's facade, as its tools call it
    config.write_text("kerneluser: false\n", encoding="utf-8")
    assert run_bsi("preflight", "check", sat, "agents/x.md", brain=brain).code == 5
    with pytest.raises(PreflightRefused) as refused:
        s.brain.preflight(sat, "agents/x.md")
    assert refused.value.exit_code == 5
    index = hook_index.load(brain)
    assert index is None or index["kerneluser"] is False



def test_sync_set_to_manual_under_a_running_server_commits_the_next_write_locally(brain: Path,
                                                                                   tmp_path: Path) -> None:
    """The server's own advice on an unreachable remote is a human's `sync: manual`: a server started under
    `sync: auto` kept sending every write through the remote it read at start, so the advice never helped."""
    unreachable(brain, tmp_path)
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    refused, _ = call(lambda: tools.claim_open(s, ["src/"], story="x"), s)
    assert refused["exit"] == 69 and "sync: manual" in refused["error"], refused
    (brain / "brain-compose.yml").write_text("brain_name: prod\nsync: manual\n", encoding="utf-8")
    opened, is_error = call(lambda: tools.claim_open(s, ["src/"], story="x"), s)
    assert not is_error, opened
    assert git(brain, "log", "-1", "--format=%s").startswith("bsi: open claim ")


def test_sync_set_to_auto_under_a_running_server_sends_the_next_write_through_the_remote(brain: Path,
                                                                                         tmp_path: Path) -> None:
    unreachable(brain, tmp_path)
    (brain / "brain-compose.yml").write_text("brain_name: prod\nsync: manual\n", encoding="utf-8")
    s = Session(brain, now=NOW, environ=clean_env(), client="")
    first, is_error = call(lambda: tools.claim_open(s, ["src/"], story="x"), s)
    assert not is_error, first
    (brain / "brain-compose.yml").write_text("brain_name: prod\nsync: auto\n", encoding="utf-8")
    head = git(brain, "rev-parse", "HEAD")
    second, is_error = call(lambda: tools.claim_open(s, ["docs/"], story="y"), s)
    assert is_error and second["exit"] == 69, second
    assert git(brain, "rev-parse", "HEAD") == head
