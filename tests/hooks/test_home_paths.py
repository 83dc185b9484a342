"""A tool path starting with `~` names the home folder for a tool that expands it, or a folder named `~` under
the cwd for one that does not: `bsi hook pre-tool-use` checks both, so `~/brain/todo.md` never writes a claimed
`todo.md` of the brain at ~/brain unchecked (SPEC 20.2)."""

from __future__ import annotations

from pathlib import Path

from tests.bsi import clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


def test_an_unbound_write_through_the_home_folder_meets_the_holder(brain: Path) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "todo.md", "--slug", "first", brain=brain))
    home = clean_env(HOME=str(brain.parent))
    for path in (f"~/{brain.name}/todo.md", f"~/{brain.name}/./TODO.md"):
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", path, session="x"), env=home), holder)
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", f"~/{brain.name}/claims/x.yml", session="x"),
                       env=home), "protocol file")


def test_a_bound_write_through_the_home_folder_is_checked_as_its_file(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--scope", "~/", "--agent-session", AGENT, brain=brain))
    home = clean_env(HOME=str(brain.parent))
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", f"~/{brain.name}/src/a.py"), env=home))
    assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", f"~/{brain.name}/docs/a.md"), env=home),
                  "scope violation")
