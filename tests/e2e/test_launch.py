"""A satellite started by `bsi launch` runs the real Claude Code inside its claim's own sandbox (SPEC 20.5, 21.3)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.bsi import bsi_command, git
from tests.e2e.client import Session
from tests.e2e.conftest import HEADLESS, demo_claim
from tests.e2e.fake_api import Text, bash, result_text

SATELLITE = "api-search"  # the demo claim's slug (`demo_claim`)
INSIDE = "brain-engine/api/routes.py"
OUTSIDE = "deploy/vps.md"


def _append(path: str, text: str) -> str:
    """A shell command that appends through an interpreter: no command line shows the hook where it writes."""
    return f"python3 -c \"open('{path}', 'a').write('{text}')\""


def test_a_launched_satellites_shell_writes_only_inside_its_claim(
        e2e_brain: Path, run_claude: Callable[..., Session], claude_bin: str) -> None:
    compose = e2e_brain / "brain-compose.yml"
    template = [claude_bin, "-p", "{prompt}", *HEADLESS]
    compose.write_text(compose.read_text() + f"launch:\n  command: {json.dumps(template)}\n  tmux: false\n")
    git(e2e_brain, "commit", "-q", "-m", "launch: the e2e client", "--", "brain-compose.yml")
    inside, outside = e2e_brain / INSIDE, e2e_brain / OUTSIDE
    inside_before, outside_before = inside.read_text(), outside.read_bytes()
    script = [bash(_append(INSIDE, "# paginated")), bash(_append(OUTSIDE, "# not mine")), Text("Done.")]

    satellite = demo_claim(e2e_brain, SATELLITE)
    run = run_claude(e2e_brain, "", script, command=bsi_command("launch", satellite, "--here", brain=e2e_brain))

    assert run.code == 0, run.transcript()
    assert (e2e_brain / ".brain" / "launch" / f"{satellite}.json").is_file()
    # The launch prompt names the claim, and the session is bound to it (BSI_SESSION).
    first = run.api.agent_requests()[0].text
    assert f"claim: {satellite}" in first and f"BSI claim {satellite}: status open" in first, first[-3000:]
    written = run.api.result_of(0)
    assert not written.get("is_error"), written
    assert inside.read_text() == inside_before + "# paginated"
    refused = run.api.result_of(1)
    assert refused.get("is_error") is True and "Read-only file system" in result_text(refused), refused
    assert outside.read_bytes() == outside_before
