"""The hook index and times written without a UTC offset: they are read in the machine's zone, so an index
built in another zone (another `TZ`, or before a daylight-saving change) is not trusted."""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from brain_tui.core.paths.layout import HOOK_INDEX_FILE
from brain_tui.core.sessions import hook_index
from tests.bsi import clean_env, ok, run_bsi
from tests.clock import clock_ahead, in_process
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook

WEST = "America/Los_Angeles"  # UTC-8 in November


@contextmanager
def machine_zone(name: str) -> Iterator[None]:
    """This process's local zone is `name` within the block."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()


def settle_in(brain: Path, zone: str) -> dict[str, Any] | None:
    """The index written by a hook run in `zone`, past its racy window, as a process in `zone` loads it."""
    env = clean_env(TZ=zone)
    nothing = event(brain, "Edit", str(brain / "zz-nothing" / "x"))
    hook(brain, "pre-tool-use", nothing, env=env)
    (brain / HOOK_INDEX_FILE).unlink()
    past_racy_window = hook_index.RACY_NS / 1e9 + 0.2
    if in_process():
        with clock_ahead(past_racy_window):
            hook(brain, "pre-tool-use", nothing, env=env)
    else:
        time.sleep(past_racy_window)
        hook(brain, "pre-tool-use", nothing, env=env)
    with machine_zone(zone):
        return hook_index.load(brain)


def test_an_index_built_in_another_zone_does_not_vouch_for_a_claim_past_its_expiry(brain: Path) -> None:
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", "--agent-session", AGENT, brain=brain,
                      now="2026-11-29T09:00:00Z"))
    path = brain / "claims" / f"{sess}.yml"
    text = re.sub(r"opened_at: .*", "opened_at: '2026-11-29T09:00:00'", path.read_text())  # a legacy tool's
    path.write_text(re.sub(r"expires_at: .*", "expires_at: '2026-11-29T09:30:00'", text))
    subprocess.run(["git", "-C", str(brain), "commit", "-qam", "legacy times"], check=True,
                   env=clean_env(identity="pilot"), capture_output=True)
    assert settle_in(brain, WEST) is not None
    target = event(brain, "Edit", str(brain / "src" / "a.py"))
    assert_allowed(hook(brain, "pre-tool-use", target, env=clean_env(TZ=WEST)))  # NOW is 02:00 there
    assert_denied(hook(brain, "pre-tool-use", target), "stale")  # in UTC (this hook's zone) it expired at 09:30


def test_a_zone_named_in_brain_compose_is_the_same_in_every_process(brain: Path) -> None:
    (brain / "brain-compose.yml").write_text("timezone: Europe/Paris\n")
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "s", "--agent-session", AGENT, brain=brain))
    assert settle_in(brain, WEST) is not None
    with machine_zone("UTC"):
        assert hook_index.load(brain) is not None
    assert_allowed(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "src" / "a.py"))))
