"""A hook whose configured brain (`--brain`, `$BRAIN_ROOT`) is no brain still guards the brain a write lands in
(SPEC 20.2: a protocol file is denied; the brain is found from `--brain`, else `$BRAIN_ROOT`, …): it cannot decide
there, so a write into a brain fails closed, naming the folder to fix; a write outside every brain goes on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.bsi import clean_env, ok, run_bsi
from tests.hooks.test_pre_tool_use import assert_allowed, assert_denied, event


def configured_hook(where: str, configured: Path, cwd: Path, payload: dict[str, object]
                    ) -> subprocess.CompletedProcess[str]:
    """`bsi hook pre-tool-use` with its brain named by `$BRAIN_ROOT` or by `--brain` after the event."""
    flags = ["--brain", str(configured)] if where == "--brain" else []
    env = clean_env(BRAIN_ROOT=str(configured)) if where == "BRAIN_ROOT" else clean_env()
    done = run_bsi("hook", "pre-tool-use", *flags, cwd=cwd, env=env, input=json.dumps(payload).encode())
    assert done.code in (0, 2) and "Traceback" not in done.err
    return subprocess.CompletedProcess(["bsi", "hook"], done.code, done.out, done.err)


@pytest.mark.parametrize("where", ["BRAIN_ROOT", "--brain"])
def test_a_write_into_a_brain_under_a_configured_brain_that_is_none_fails_closed(
        brain: Path, tmp_path: Path, where: str) -> None:
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "theirs", brain=brain))
    gone = tmp_path / "moved-away"
    for target in (brain / "claims" / f"{holder}.yml", brain / "src" / "a.py"):
        payload = event(brain, "Write", str(target), session="unbound-1")
        assert_denied(configured_hook(where, gone, brain, payload), str(gone), "could not decide")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    payload = event(elsewhere, "Write", str(elsewhere / "notes.txt"), session="unbound-1")
    assert_allowed(configured_hook(where, gone, elsewhere, payload))


def _shell(cwd: Path | None, command: str, tool: str = "Bash", **tool_input: str) -> dict[str, object]:
    payload: dict[str, object] = {"session_id": "unbound-1", "hook_event_name": "PreToolUse", "tool_name": tool,
                                   "tool_input": {"command": command, **tool_input}}
    if cwd is not None:
        payload["cwd"] = str(cwd)
    return payload


@pytest.mark.parametrize("where", ["BRAIN_ROOT", "--brain"])
def test_a_shell_write_into_a_brain_from_outside_it_fails_closed_under_a_configured_brain_that_is_none(
        brain: Path, tmp_path: Path, where: str) -> None:
    """The folder a shell runs in is not the only place it writes: a `cd` into the brain, an absolute
    redirection, the shell tool's own folder (`dir_path`) land in it from anywhere."""
    holder = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "theirs", brain=brain))
    gone = tmp_path / "moved-away"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for payload in (_shell(elsewhere, f"cd {brain} && echo x > src/a.py"),
                    _shell(elsewhere, f"echo x > {brain}/src/a.py"),
                    _shell(elsewhere, f"rm -f {brain}/claims/{holder}.yml"),
                    _shell(elsewhere, "echo x > src/a.py", tool="run_shell_command", dir_path=str(brain)),
                    {"session_id": "unbound-1", "hook_event_name": "PreToolUse", "tool_name": "write_stdin",
                     "cwd": str(brain), "tool_input": {"session_id": 7, "chars": "echo x > src/a.py\n"}}):
        assert_denied(configured_hook(where, gone, elsewhere, payload), str(gone), "could not decide")
    assert_allowed(configured_hook(where, gone, elsewhere, _shell(elsewhere, "echo x > notes.txt")))



@pytest.mark.parametrize("where", ["BRAIN_ROOT", "--brain"])
def test_a_shell_tree_write_over_the_brain_of_the_events_folder_fails_closed(
        brain: Path, tmp_path: Path, where: str) -> None:
    """A shell tool run in a folder of its own (`dir_path`), from a session whose folder is the brain, that removes
    or overwrites a folder holding the brain writes into it, as the core reads it (`_holds_the_brain`)."""
    gone = tmp_path / "moved-away"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for command in (f"rm -rf {brain.parent}", f"find {brain.parent} -delete"):
        payload = _shell(brain, command, tool="run_shell_command", dir_path=str(elsewhere))
        assert_denied(configured_hook(where, gone, elsewhere, payload), str(gone), "could not decide")
    payload = _shell(brain, f"rm -rf {elsewhere}", tool="run_shell_command", dir_path=str(elsewhere))
    assert_allowed(configured_hook(where, gone, elsewhere, payload))


@pytest.mark.parametrize("where", ["BRAIN_ROOT", "--brain"])
def test_a_write_through_a_link_outside_every_brain_to_a_file_in_one_fails_closed(
        brain: Path, tmp_path: Path, where: str) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "theirs", brain=brain))
    gone = tmp_path / "moved-away"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "link.py").symlink_to(brain / "src" / "a.py")  # the tool writes where the link points
    for payload in (event(elsewhere, "Write", str(elsewhere / "link.py"), session="unbound-1"),
                    _shell(elsewhere, "echo x > link.py")):
        assert_denied(configured_hook(where, gone, elsewhere, payload), str(gone), "could not decide")


@pytest.mark.parametrize("where", ["BRAIN_ROOT", "--brain"])
def test_a_relative_write_with_no_cwd_in_the_event_is_read_from_the_hooks_folder(
        brain: Path, tmp_path: Path, where: str) -> None:
    """An event with no `cwd` (or a relative one): the tool resolves a relative path from the agent's folder,
    the hook's own; a write there into a brain fails closed too."""
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "theirs", brain=brain))
    gone = tmp_path / "moved-away"
    for cwd in (None, "."):
        payload = event(brain, "Write", "src/a.py", session="unbound-1")
        if cwd is None:
            del payload["cwd"]
        else:
            payload["cwd"] = cwd
        assert_denied(configured_hook(where, gone, brain, payload), str(gone), "could not decide")
        shell = _shell(None, "echo x > src/a.py")
        if cwd is not None:
            shell["cwd"] = cwd
        assert_denied(configured_hook(where, gone, brain, shell), str(gone), "could not decide")
