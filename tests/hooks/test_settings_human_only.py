"""`bsi hooks install` keeps a human's decisions out of the agent's own Bash (SPEC 6.3, 20.3)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.bsi import ok, run_bsi


def _matches(rule: str, command: str) -> bool:
    """Claude Code's reading of a `Bash(pattern)` rule: `*` is any text, spaces included."""
    inner = re.fullmatch(r"Bash\((.*)\)", rule)
    if inner is None:
        return False
    return re.fullmatch(".*".join(re.escape(part) for part in inner.group(1).split("*")), command) is not None


def test_the_installed_settings_deny_every_human_decision_to_the_agents_bash(brain: Path) -> None:
    ok(run_bsi("hooks", "install", brain=brain))
    deny = json.loads((brain / ".claude" / "settings.json").read_text())["permissions"]["deny"]
    sess = "sess-20261129-1000-deploy"
    human = [f"bsi gate approve {sess}", f"bsi gate reject {sess} no", f"bsi gate pause {sess}",
             f"bsi gate resume {sess}", f"bsi gate abort {sess} stop", f"bsi claim release {sess} --reason gone",
             f"bsi --brain /srv/brain gate approve {sess}", f"cd /srv/brain && bsi --json gate resume {sess}",
             f"/usr/local/bin/bsi gate approve {sess} 'looks fine'"]
    agent = [f"bsi gate request {sess} 'deploy?'", f"bsi gate status {sess}", f"bsi claim close {sess} --status ok",
             f"bsi claim renew {sess}", "bsi claim open --scope src/", f"bsi preflight check {sess} src/a.py"]
    for command in human:
        assert any(_matches(rule, command) for rule in deny), command
    for command in agent:
        assert not any(_matches(rule, command) for rule in deny), command
