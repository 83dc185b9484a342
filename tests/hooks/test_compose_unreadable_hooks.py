"""`bsi hook pre-tool-use` while brain-compose.yml does not read: the hooks at their strictest (SPEC 22), on the
core's path and on the hook index's fast path alike."""

from __future__ import annotations

import time
from pathlib import Path

from brain_tui.core.paths.layout import HOOK_INDEX_FILE
from brain_tui.core.sessions import hook_index
from tests.bsi import clean_env, ok, run_bsi
from tests.clock import clock_ahead, in_process
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


def settled(brain: Path) -> dict[str, object] | None:
    """The index a hook run writes, past its racy window, as the next hook loads it."""
    nothing = event(brain, "Edit", str(brain / "zz-nothing" / "x"))
    hook(brain, "pre-tool-use", nothing)
    (brain / HOOK_INDEX_FILE).unlink(missing_ok=True)
    past_racy_window = hook_index.RACY_NS / 1e9 + 0.2
    if in_process():
        with clock_ahead(past_racy_window):
            hook(brain, "pre-tool-use", nothing)
    else:
        time.sleep(past_racy_window)
        hook(brain, "pre-tool-use", nothing)
    return hook_index.load(brain)


def test_a_kernel_zone_named_in_a_compose_file_that_stops_reading_still_holds_a_bound_satellite(brain: Path) -> None:
    # Before, the bound write was decided on the defaults once the file stopped parsing: the kernel zone it names
    # no longer held the satellite, first in the core, then on the fast path from the index built on that read.
    (brain / "brain-compose.yml").write_text("zones:\n  kernel: [src/core/]\n")
    pilot = ok(run_bsi("claim", "open", "--type", "pilote", "--scope", "src/", "--story", "p", brain=brain))
    ok(run_bsi("claim", "open", "--parent", pilot, "--satellite-type", "code", "--scope", "src/", "--story", "s",
               "--agent-session", AGENT, brain=brain))
    kernel = event(brain, "Edit", str(brain / "src" / "core" / "a.py"))
    plain = event(brain, "Edit", str(brain / "src" / "b.py"))
    assert_denied(hook(brain, "pre-tool-use", kernel), "kernel zone")
    assert_allowed(hook(brain, "pre-tool-use", plain))
    (brain / "brain-compose.yml").write_text("zones:\n  kernel: [src/core/]\nhooks: [\n")
    assert settled(brain) is not None
    for target in (kernel, plain):
        assert_denied(hook(brain, "pre-tool-use", target, env=clean_env()), "brain-compose.yml", "line 4")
