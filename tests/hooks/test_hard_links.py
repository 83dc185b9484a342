"""A hard link is a second name of one file that no path shows: a write through `real/c.yml`, linked to
`claims/<id>.yml` or to another claim's file, changes that file. The write decision refuses a file with more
than one name, bound or not, from the hook (fast path included) and from `bsi preflight check` (SPEC 5.2, 10,
20.2)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.bsi import ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


def test_a_write_through_a_hard_link_is_denied(brain: Path) -> None:
    (brain / "real").mkdir()
    (brain / "notes").mkdir()
    (brain / "notes" / "todo.md").write_text("## Sprint\n")
    mine = ok(run_bsi("claim", "open", "--scope", "real/", "--agent-session", AGENT, "--slug", "mine", brain=brain))
    other = ok(run_bsi("claim", "open", "--scope", "notes/", "--slug", "other", brain=brain))
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "real" / "free.md"))))
    os.link(brain / "claims" / f"{other}.yml", brain / "real" / "c.yml")
    os.link(brain / "notes" / "todo.md", brain / "real" / "t.md")
    for name in ("c.yml", "t.md"):
        path = str(brain / "real" / name)
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", path)), "hard link")
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", path, session="nobody")), "hard link")
        refused = run_bsi("preflight", "check", mine, f"real/{name}", brain=brain)
        assert refused.code == 1 and "hard link" in refused.err, (refused.out, refused.err)
    shell = {**event(brain, "Bash", ""), "tool_input": {"command": "echo x >> real/c.yml"}}
    assert_denied(hook(brain, "pre-tool-use", shell), "hard link")
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "real" / "free.md"))))
