"""A folder written whole by a bound session's shell (`rm -r`, an extraction into it: SPEC 21.3).

The claim's own folder is its to write whole (`rm -rf wiki`, `tar -xf A -C wiki` under a claim on `wiki/`), as a
folder below it is; a kernel-zone file below the folder stays a human's to write (SPEC 10, code 5), however the
satellite's line reaches it: removing the folder that holds it is writing it.
"""

from __future__ import annotations

from pathlib import Path

from tests.bsi import ok, run_bsi
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, hook
from tests.hooks.test_shell_hook import bash


def _claim_on_wiki(brain: Path, zone: str = "") -> None:
    """AGENT bound to a satellite claim on wiki/ (under a pilot's claim there); `zone` the kernel zone, if any."""
    (brain / "wiki" / "sub").mkdir(parents=True)
    (brain / "wiki" / "sub" / "k.md").write_text("kernel\n")
    (brain / "wiki" / "other").mkdir()
    if zone:
        (brain / "brain-compose.yml").write_text(f"zones:\n  kernel: [{zone}]\n")
    pilot = ok(run_bsi("claim", "open", "--scope", "wiki/", "--slug", "pilot", brain=brain)).strip()
    ok(run_bsi("claim", "open", "--scope", "wiki/", "--slug", "sat", "--type", "satellite", "--parent", pilot,
               "--agent-session", AGENT, brain=brain))


def test_a_satellite_never_writes_a_kernel_file_by_writing_its_folder_whole(brain: Path) -> None:
    _claim_on_wiki(brain, zone="wiki/sub/k.md")
    for command in ("rm -rf wiki/sub", "rm -r wiki/sub/", "tar -xf /tmp/a.tar -C wiki/sub", "rm -rf wiki",
                    "cd wiki && rm -rf sub"):
        for _ in range(2):  # the core's answer, then the hook index's
            assert_denied(hook(brain, "pre-tool-use", bash(brain, command)), "zone violation")
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, "rm -rf wiki/other")))


def test_a_claims_own_folder_is_its_to_write_whole(brain: Path) -> None:
    _claim_on_wiki(brain)
    for command in ("tar -xf /tmp/a.tar -C wiki", "cd wiki && unzip /tmp/a.zip", "rm -rf wiki", "rm -r wiki/"):
        for _ in range(2):
            assert_allowed(hook(brain, "pre-tool-use", bash(brain, command)))
    assert_denied(hook(brain, "pre-tool-use", bash(brain, "rm -rf notes")), "outside the scope")
