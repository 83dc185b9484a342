"""A protocol file changed in the work tree (a hard link, a `--no-commit` write, another session's write in
flight) never reaches git through an agent's sweeping `git add` or `git commit -a` (SPEC 11, 22): the sweep names
it, and the hook refuses. Named paths elsewhere, and sweeps over a clean work tree, go through."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import ok, run_bsi
from tests.hooks.test_hook_index import settle
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, hook
from tests.hooks.test_shell_hook import bash


def test_a_sweeping_git_add_or_commit_never_carries_a_changed_claim_file(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "/", "--story", "all", "--agent-session", AGENT,
                      brain=brain)).strip()
    (brain / "notes").mkdir()
    settle(brain)
    sweeps = ["git commit -am work", "git add -A", "git add .", "git add -u", "git add --all"]
    for command in [*sweeps, "git add notes", "git commit -m work"]:
        assert_allowed(hook(brain, "pre-tool-use", bash(brain, command)))
    claim = brain / "claims" / f"{sess}.yml"
    claim.write_text(claim.read_text(encoding="utf-8") + "# a change no bsi command made\n", encoding="utf-8")
    for command in sweeps:
        assert_denied(hook(brain, "pre-tool-use", bash(brain, command)), f"claims/{sess}.yml")
    for command in ("git add notes", "git add -u notes", "git commit -m work"):
        assert_allowed(hook(brain, "pre-tool-use", bash(brain, command)))
