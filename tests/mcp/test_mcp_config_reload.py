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
from brain_tui.mcp.tools import Session
from tests.bsi import NOW, clean_env, ok, run_bsi


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

