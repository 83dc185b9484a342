"""core/sessions/launch.py: the argv rule and what tmux is given (no process started)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from brain_tui.core.errors import InvalidData
from brain_tui.core.sessions.launch import LaunchPlan, build_argv, launch_settings
from brain_tui.core.sessions.launch_root import root_argv_file
from brain_tui.core.sessions.tmux import tmux_arg, tmux_command

VALUES = {"sess_id": "sess-20261129-1000-ab12", "scope": "wiki/", "story": "a b; c", "prompt": "P",
          "slug": "ab12", "root": "/b"}


def plan(*argv: str, cwd: str = "/b") -> LaunchPlan:
    return LaunchPlan(sess_id="sess-x", argv=argv, env={"BSI_SESSION": "sess-x", "BRAIN_ROOT": cwd}, cwd=cwd,
                      tmux=True, name="ab12")


def test_each_placeholder_stays_inside_its_element() -> None:
    assert build_argv(["a", "--s={story}", "{story}", "{scope}{slug}"], VALUES) == (
        "a", "--s=a b; c", "a b; c", "wiki/ab12")


@pytest.mark.parametrize("template", [["{story}"], ["{prompt}", "x"], ["x", "{bogus}"]])
def test_program_never_from_claim_text_and_placeholders_known(template: list[str]) -> None:
    with pytest.raises(InvalidData):
        build_argv(template, VALUES)


def test_claim_text_cannot_add_an_option_or_a_nul() -> None:
    with pytest.raises(InvalidData, match="option"):
        build_argv(["x", "{story}"], {**VALUES, "story": "--yolo"})
    with pytest.raises(InvalidData, match="NUL"):
        build_argv(["x", "{story}"], {**VALUES, "story": "a\x00b"})
    assert build_argv(["x", "--flag={story}"], {**VALUES, "story": "--yolo"}) == ("x", "--flag=--yolo")


def test_tmux_sees_escaped_semicolons_and_never_a_lone_command() -> None:
    assert tmux_arg("a;") == "a\\;" and tmux_arg("a\\;") == "a\\\\;" and tmux_arg("a;b") == "a;b"
    argv = tmux_command(plan("claude"), inside_tmux=True, session="bsi-x", session_exists=False,
                        program="/usr/bin/claude")
    # the launch root runs the agent: never one argument (tmux would run it by a shell), its argv from a file
    assert argv[argv.index("--") + 1:] == root_argv_file("/usr/bin/claude", "/b/.brain/launch/sess-x.argv.json")
    assert argv[argv.index("--") + 1:][-6:] == ["--exec", "/usr/bin/claude", "--argv-file",
                                                "/b/.brain/launch/sess-x.argv.json", "--wait", "20"]
    argv = tmux_command(plan("a", "x;", cwd="/b#(id);"), inside_tmux=False, session="bsi-x", session_exists=False)
    assert argv[:2] == ["tmux", "new-session"] and "x;" not in argv and "x\\;" not in argv  # claim text: never
    assert argv[-3:] == ["/b#(id);/.brain/launch/sess-x.argv.json", "--wait", "20"]
    assert argv[argv.index("-c") + 1] == "/b##(id)\\;"  # -c is format-expanded by tmux
    assert "BRAIN_ROOT=/b#(id)\\;" in argv


def test_settings_want_an_argv_list() -> None:
    assert launch_settings({"launch": {"command": ["claude", "{prompt}"]}}).command == ("claude", "{prompt}")
    assert "argv list" in launch_settings({"launch": {"command": "claude {prompt}"}}).problem
    assert launch_settings({}).command is None
    assert launch_settings({"launch": {"command": ["x"], "tmux": False}}).use_tmux() is False


def test_attach_switches_inside_the_same_tmux_server_else_takes_the_terminal() -> None:
    from brain_tui.core.sessions.launch import LaunchRecord
    from brain_tui.core.sessions.tmux import attach_command

    record = LaunchRecord(sess_id="sess-x", mode="tmux", pid=1, create_time=0.0, started_at="",
                          window="@4", target="bsi-b:2", socket="/tmp/tmux-0/default", name="x")
    inside = attach_command(record, current_tmux="/tmp/tmux-0/default,123,0")
    assert inside.argv == ("tmux", "-S", "/tmp/tmux-0/default", "switch-client", "-t", "@4")
    assert not inside.takes_terminal
    for current in (None, "/tmp/tmux-0/other,1,0"):
        outside = attach_command(record, current_tmux=current)
        assert outside.argv[-3:] == ("attach-session", "-t", "@4") and outside.takes_terminal


def test_a_read_only_attach_is_a_read_only_client_even_inside_the_same_tmux_server() -> None:
    """`brain-tui --readonly` watches an agent and never types into it: `attach-session -r`, never a switch of the
    pilot's own client (which would take keys to the agent's pane)."""
    from brain_tui.core.sessions.launch import LaunchRecord
    from brain_tui.core.sessions.tmux import attach_command

    record = LaunchRecord(sess_id="sess-x", mode="tmux", pid=1, create_time=0.0, started_at="",
                          window="@4", target="bsi-b:2", socket="/tmp/tmux-0/default", name="x")
    for current in ("/tmp/tmux-0/default,123,0", None, "/tmp/tmux-0/other,1,0"):
        watch = attach_command(record, current_tmux=current, read_only=True)
        assert watch.argv[-4:] == ("attach-session", "-r", "-t", "@4") and watch.takes_terminal, watch


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("verb", ["answer", "interrupt", "stop"])
def test_keys_to_a_launch_whose_tmux_is_gone_are_not_found(tmp_path: Path, verb: str) -> None:
    """Its window killed, the agent's process may live on a moment (still "running"): tmux's "no server" or
    "can't find" is the launch gone, exit 66 as README says, not a refusal (65)."""
    from brain_tui.core.errors import NotFound
    from brain_tui.core.sessions import pane_keys
    from brain_tui.core.sessions.launch import LaunchRecord

    record = LaunchRecord(sess_id="sess-x", mode="tmux", pid=1, create_time=0.0, started_at="", window="@4",
                          target="bsi-b:2", socket=str(tmp_path / "no-server"), name="x", pane="%7")
    with pytest.raises(NotFound, match="no launched agent of sess-x"):
        if verb == "answer":
            pane_keys.answer(record, "yes")
        else:
            getattr(pane_keys, verb)(record)
