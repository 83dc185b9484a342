"""`bsi launch ID` (SPEC 20.5): which claim may be launched, the argv from launch.command, tmux, the limit of 3.

The launched "agent" is a small Python script that writes the argv and environment it received
as JSON: a hostile story must arrive as exactly one argument, and nothing in it may run.
tmux runs as a private server (its own TMUX_TMPDIR), never the user's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import Run, ok, run_bsi
from tests.clock import wait_for
from tests.conftest import load_claim, signal_docs
from tests.tmux import needs_tmux, no_tmux_env, private_server, windows

RECORDER = """\
import json, os, sys, time
out = sys.argv[1]
doc = {"argv": sys.argv[2:], "cwd": os.getcwd(),
       "env": {k: os.environ.get(k) for k in ("BSI_SESSION", "BRAIN_ROOT")}}
with open(out + ".tmp", "w", encoding="utf-8") as fh:
    json.dump(doc, fh)
os.replace(out + ".tmp", out)
time.sleep(float(os.environ.get("RECORDER_SLEEP", "0")))
"""

HOSTILE = "$(touch PWNED) `touch PWNED` \"dq\" 'sq' \\ back\nnew line; touch PWNED; x;"


def write_config(brain: Path, command: list[str], *, tmux: bool | None = None) -> None:
    """brain-compose.yml with a launch block (JSON is YAML)."""
    block: dict[str, Any] = {"command": command}
    if tmux is not None:
        block["tmux"] = tmux
    (brain / "brain-compose.yml").write_text(json.dumps({"launch": block}), encoding="utf-8")


def recorder(tmp_path: Path) -> Path:
    """The script standing in for an agent."""
    path = tmp_path / "recorder.py"
    path.write_text(RECORDER, encoding="utf-8")
    return path


def recorded(path: Path, timeout: float = 20.0) -> dict[str, Any]:
    """What the recorder wrote (waits for it: a tmux window starts asynchronously)."""
    wait_for(path.exists, timeout=timeout, what=f"the launched command to run ({path} missing)")
    return json.loads(path.read_text(encoding="utf-8"))


def opened(brain: Path, *args: str) -> str:
    return ok(run_bsi("claim", "open", *args, brain=brain))


def test_no_command_configured_exits_64_with_examples_to_copy(brain: Path) -> None:
    sess = opened(brain, "--scope", "wiki/")
    run = run_bsi("launch", sess, brain=brain)
    assert run.code == 64
    assert run.err.startswith("bsi: no launch command configured")
    for agent in ("Claude Code", "Codex", "Gemini"):
        assert agent in run.err
    # the examples are lines of YAML, not prefixed, so they paste as they are
    assert "\n    launch:\n      command: [claude, \"{prompt}\"]\n" in run.err
    assert run.out == ""


@pytest.mark.parametrize("text", ['launch: {command: [claude, "{prompt}"]', "launch: &a {command: [claude, *a]}",
                                  "- launch"])
def test_a_config_that_does_not_read_is_invalid_data_not_a_missing_command(brain: Path, text: str) -> None:
    # Before, a launch block in a brain-compose.yml that does not parse (an unclosed list, an alias) said "no launch
    # command configured: add one" (64): the user was sent to add what is already there.
    sess = opened(brain, "--scope", "wiki/")
    (brain / "brain-compose.yml").write_text(text, encoding="utf-8")
    for args in ([sess, "--dry-run"], [sess]):
        run = run_bsi("launch", *args, brain=brain)
        assert run.code == 65 and len(run.err.strip().splitlines()) == 1, run.err
        assert "brain-compose.yml" in run.err and "no launch command" not in run.err and run.out == ""


@pytest.mark.parametrize("args", [["--list", "--attach"], ["--list", "ID"], ["--list", "--dry-run"],
                                  ["--attach", "ID", "--dry-run"], ["--attach", "ID", "--here"]])
def test_options_that_do_not_go_together_are_a_usage_error(brain: Path, args: list[str]) -> None:
    # Before, `--list` dropped the rest and `--attach` dropped `--dry-run`: the user got something they did not ask.
    sess = opened(brain, "--scope", "wiki/")
    run = run_bsi("launch", *[sess if arg == "ID" else arg for arg in args], brain=brain)
    assert run.code == 64 and len(run.err.strip().splitlines()) == 1, run.err
    assert run.out == "" and not run.err.startswith("bsi: bsi "), run.err


def test_attach_without_an_id_asks_for_the_claim_id(brain: Path) -> None:
    # Before, `bsi launch --attach` said "give a claim ID or --handoff SIG": --attach takes no handoff.
    run = run_bsi("launch", "--attach", brain=brain)
    assert (run.code, run.err.strip()) == (64, "bsi: launch --attach: give the claim ID (and no --handoff)")


@pytest.mark.parametrize("args", [["launch", "--attach"], ["agent", "answer"], ["agent", "interrupt"],
                                  ["agent", "stop"]])
@pytest.mark.parametrize("bad", ["bad id", "sess-x\x1b]0;pwned\x07", "../claims/x"])
def test_a_malformed_id_for_a_launched_agent_is_exit_65(brain: Path, args: list[str], bad: str) -> None:
    # Before, these answered 66 "no launched agent of bad id runs" with the ID echoed raw (an escape sequence
    # reached the terminal), where `bsi launch`, `agent peek` and `claim show` say 65 "invalid session ID".
    run = run_bsi(*args, bad, *(["hi"] if args[-1] == "answer" else []), brain=brain)
    assert run.code == 65, run.err
    assert run.err.startswith("bsi: invalid session ID") and len(run.err.strip().splitlines()) == 1, run.err
    assert "\x1b" not in run.err and run.out == ""


def test_hostile_story_is_one_argument_and_nothing_runs(brain: Path, tmp_path: Path) -> None:
    out = tmp_path / "argv.json"
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(out), "{story}", "{scope}", "{sess_id}",
                         "--slug={slug}", "{root}", "{prompt}"], tmux=False)
    sess = opened(brain, "--scope", "wiki/", "--story", HOSTILE, "--slug", "hostile")
    # a process: without tmux, `bsi launch` becomes the launch root of the agent (exec)
    run = run_bsi("launch", sess, brain=brain, env=no_tmux_env(), process=True)
    assert run.code == 0, run.err
    doc = recorded(out)
    argv = doc["argv"]
    assert argv[:5] == [HOSTILE, "wiki/", sess, "--slug=hostile", str(brain)]
    prompt = argv[5]
    assert len(argv) == 6
    assert prompt.splitlines()[0].startswith("Satellite: wiki/ — $(touch PWNED)")
    assert f"claim: {sess}" in prompt
    assert "pilote: standalone" in prompt
    assert len(prompt.splitlines()) == 3  # claim text cannot add lines to the launch message
    assert doc["env"] == {"BSI_SESSION": sess, "BRAIN_ROOT": str(brain)}
    assert doc["cwd"] == str(brain)
    assert not list(brain.rglob("PWNED")) and not list(tmp_path.rglob("PWNED"))


def test_launch_message_names_type_and_pilot(brain: Path, tmp_path: Path) -> None:
    write_config(brain, ["echo", "{prompt}"], tmux=False)
    pilot = opened(brain, "--scope", "brain-engine/", "--type", "pilote", "--slug", "pilo")
    sat = opened(brain, "--scope", "brain-engine/server.py", "--parent", pilot, "--satellite-type", "code",
                 "--story", "implement BE-6")
    run = run_bsi("launch", sat, "--dry-run", "--json", brain=brain)
    assert run.code == 0, run.err
    plan = run.json()
    assert plan["argv"] == ["echo", "Satellite: brain-engine/server.py — implement BE-6\nsatellite_type: code\n"
                                    f"pilote: {pilot}\nclaim: {sat} (already open: do not open another)"]
    assert plan["env"] == {"BSI_SESSION": sat, "BRAIN_ROOT": str(brain)}


@pytest.mark.parametrize("action", ["pause", "close", "missing"])
def test_only_an_open_claim_is_launched(brain: Path, tmp_path: Path, action: str) -> None:
    write_config(brain, ["echo", "{sess_id}"], tmux=False)
    sess = opened(brain, "--scope", "wiki/")
    if action == "pause":
        ok(run_bsi("gate", "pause", sess, "hold", brain=brain))
    elif action == "close":
        ok(run_bsi("claim", "close", sess, "--status", "ok", brain=brain))
    else:
        sess = "sess-20261129-1000-none"
    run = run_bsi("launch", sess, brain=brain, env=no_tmux_env())
    assert run.code == (66 if action == "missing" else 12), run.err
    assert run.err.count("\n") == 1 and "Traceback" not in run.err


@pytest.mark.parametrize(("command", "story", "fragment"), [
    (["{story}", "x"], "ls", "program"),
    (["echo", "{story}"], "--dangerously-skip-permissions", "option"),
    (["echo", "{nope}"], "x", "unknown placeholder {nope}"),
    ("claude {prompt}", "x", "argv list"),
    (["", "{prompt}"], "x", "program (first element) is empty"),
    ([" \t"], "x", "program (first element) is empty"),
])
def test_bad_command_or_hostile_option_is_refused(brain: Path, command: Any, story: str, fragment: str) -> None:
    (brain / "brain-compose.yml").write_text(json.dumps({"launch": {"command": command, "tmux": False}}))
    sess = opened(brain, "--scope", "wiki/", f"--story={story}")
    run = run_bsi("launch", sess, brain=brain, env=no_tmux_env())
    assert run.code == 65, run.err
    assert fragment in run.err


def test_handoff_opens_the_claim_then_launches_it(brain: Path, tmp_path: Path) -> None:
    out = tmp_path / "argv.json"
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(out), "{sess_id}", "{scope}"], tmux=False)
    pilot = opened(brain, "--scope", "src/", "--type", "pilote")
    sat = opened(brain, "--scope", "src/a.md", "--parent", pilot, "--satellite-type", "brain-write",
                 "--on-done", "trigger → type:test scope:src/tests/")
    ok(run_bsi("claim", "close", sat, "--status", "ok", brain=brain))
    handoff = next(s for s in signal_docs(brain) if s["type"] == "HANDOFF")
    # a process: without tmux, `bsi launch` becomes the launch root of the agent (exec)
    run = run_bsi("launch", "--handoff", handoff["sig_id"], brain=brain, env=no_tmux_env(), process=True)
    assert run.code == 0, run.err
    argv = recorded(out)["argv"]
    new = load_claim(brain, argv[0])
    assert argv[1] == "src/tests/"
    assert (new["status"], new["satellite_type"], new["parent_satellite"]) == ("open", "test", pilot)
    assert next(s for s in signal_docs(brain) if s["sig_id"] == handoff["sig_id"])["state"] == "delivered"


@pytest.mark.parametrize("to", ["pilot", "other"])
def test_an_agent_takes_up_only_a_handoff_addressed_to_its_own_claim(brain: Path, tmp_path: Path, to: str) -> None:
    # Before, an agent's `bsi launch --handoff` of a HANDOFF to the pilot acknowledged it (hidden from the pilot, where
    # `bsi signal ack` refuses an agent that) and opened a claim that was nobody's, then refused to launch it (77).
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(tmp_path / "argv.json")], tmux=False)
    mine = opened(brain, "--scope", "src/")
    other = opened(brain, "--scope", "docs/")
    sig = ok(run_bsi("signal", "send", "--to", other if to == "other" else to, "--type", "HANDOFF",
                     "trigger → type:code scope:lib/", brain=brain))
    before = sorted(p.name for p in (brain / "claims").iterdir())
    run = run_bsi("launch", "--handoff", sig, brain=brain, env=no_tmux_env(CLAUDECODE="1", BSI_SESSION=mine))
    assert run.code == 77 and len(run.err.strip().splitlines()) == 1, run.err
    assert "opened" not in run.err and run.out == ""
    assert sorted(p.name for p in (brain / "claims").iterdir()) == before
    assert next(s for s in signal_docs(brain) if s["sig_id"] == sig)["state"] == "pending"


# -- tmux ---------------------------------------------------------------------------------------
@pytest.fixture
def launch_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A private tmux server's environment, in which the recorder stays running (RECORDER_SLEEP)."""
    with private_server(tmp_path, RECORDER_SLEEP="60") as env:
        yield env


def tmux_windows(env: dict[str, str]) -> list[str]:
    return windows(env, "window_name")


@needs_tmux
def test_tmux_window_named_after_slug_with_env_and_hostile_story(brain: Path, tmp_path: Path,
                                                                 launch_env: dict[str, str]) -> None:
    out = tmp_path / "argv.json"
    pwned = tmp_path / "PWNED-by-tmux"
    # An argument ending in ";" would end tmux's command: the next ones would run as a tmux command.
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(out), "{story}", "run-shell",
                         f"touch {pwned}"])
    story = "done; " + HOSTILE
    sess = opened(brain, "--scope", "wiki/", "--story", story, "--slug", "wiki-fix")
    run: Run = run_bsi("launch", sess, "--json", brain=brain, env=launch_env)
    assert run.code == 0, run.err
    record = run.json()
    assert record["mode"] == "tmux" and record["name"] == "wiki-fix" and record["window"].startswith("@")
    doc = recorded(out)
    assert doc["argv"] == [story, "run-shell", f"touch {pwned}"]
    assert doc["env"] == {"BSI_SESSION": sess, "BRAIN_ROOT": str(brain)}
    assert doc["cwd"] == str(brain)
    assert "wiki-fix" in tmux_windows(launch_env)
    # No wait needed: the recorder ran (so a shell would have expanded the story first), and `bsi launch`
    # returned after its tmux client, which waits for a smuggled `run-shell` to end.
    assert not pwned.exists() and not list(brain.rglob("PWNED")) and not list(tmp_path.rglob("PWNED"))
    # the same claim again: its agent runs
    again = run_bsi("launch", sess, brain=brain, env=launch_env)
    assert again.code == 12 and "already runs" in again.err
    listed = run_bsi("launch", "--list", "--json", brain=brain, env=launch_env)
    assert [r["sess_id"] for r in listed.json()["launches"]] == [sess]


@needs_tmux
def test_the_longest_story_a_claim_holds_reaches_a_tmux_launch_whole(brain: Path, tmp_path: Path,
                                                                     launch_env: dict[str, str]) -> None:
    """tmux's own command line holds about 16 KiB: the agent's argv must not travel on it."""
    out = tmp_path / "argv.json"
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(out), "{story}", "{prompt}"])
    story = ("修复 {root} {prompt} x; " * 800)[:8000]  # the longest story a claim holds, 3 bytes a character
    sess = opened(brain, "--scope", "wiki/", "--story", story, "--slug", "long")
    run = run_bsi("launch", sess, "--json", brain=brain, env=launch_env)
    assert run.code == 0, run.err
    doc = recorded(out)
    assert doc["argv"][0] == story and len(doc["argv"]) == 2 and story[:100] in doc["argv"][1]
    assert doc["env"] == {"BSI_SESSION": sess, "BRAIN_ROOT": str(brain)}
    assert not list((brain / ".brain").rglob("*.argv*"))  # the hand-over file is gone once read


@needs_tmux
def test_at_most_three_launches_at_once(brain: Path, tmp_path: Path, launch_env: dict[str, str]) -> None:
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(tmp_path / "{slug}.json")])
    ids = [opened(brain, "--scope", f"w{i}/", "--slug", f"s{i}") for i in range(4)]
    for sess in ids[:3]:
        run = run_bsi("launch", sess, brain=brain, env=launch_env)
        assert run.code == 0, run.err
    for i in range(3):
        recorded(tmp_path / f"s{i}.json")
    fourth = run_bsi("launch", ids[3], brain=brain, env=launch_env)
    assert fourth.code == 75, fourth.err
    assert "at most 3 at once" in fourth.err
    assert sorted(tmux_windows(launch_env)) == ["s0", "s1", "s2"]
    # one ends: a slot is free again
    subprocess.run(["tmux", "kill-window", "-t", "s0"], env=launch_env, check=True, capture_output=True)
    def launched_fourth() -> Run | None:
        run = run_bsi("launch", ids[3], brain=brain, env=launch_env)
        return run if run.code == 0 else None

    wait_for(launched_fourth, timeout=10, every=0.2, what="a slot to free up once s0's window is gone")


@needs_tmux
@pytest.mark.parametrize("name", ["my.brain", "team:wiki"])
def test_a_brain_name_with_a_dot_or_colon_launches_a_second_agent(brain: Path, tmp_path: Path,
                                                                   launch_env: dict[str, str], name: str) -> None:
    # Before, tmux stored the session "bsi-my.brain" as "bsi-my_brain": the second launch looked for the first
    # name, found no session, asked for a new one and tmux refused it ("duplicate session", 65).
    ids = [opened(brain, "--scope", f"w{i}/", "--slug", f"s{i}") for i in range(2)]
    (brain / "brain-compose.yml").write_text(json.dumps({
        "brain_name": name, "launch": {"command": [sys.executable, str(recorder(tmp_path)),
                                                   str(tmp_path / "{slug}.json")]}}), encoding="utf-8")
    for sess in ids:
        run = run_bsi("launch", sess, brain=brain, env=launch_env)
        assert run.code == 0, run.err
    assert sorted(tmux_windows(launch_env)) == ["s0", "s1"]
    assert len(windows(launch_env, "session_id")) == 2 and len(set(windows(launch_env, "session_id"))) == 1


def test_a_claim_whose_bound_agent_still_works_is_not_launched_again(brain: Path) -> None:
    from datetime import datetime

    from brain_tui.core.sessions import agents

    write_config(brain, ["echo", "{sess_id}"], tmux=False)
    sess = opened(brain, "--scope", "wiki/")
    at = datetime.fromisoformat("2026-11-29T10:00:00+00:00")
    agents.record_activity(brain, sess, "agent-1", at, tool="Edit")
    run = run_bsi("launch", sess, "--dry-run", brain=brain)
    assert run.code == 12 and "agent session agent-1 is working" in run.err
    agents.record_state(brain, sess, "agent-1", "ended", at)
    assert run_bsi("launch", sess, "--dry-run", brain=brain).code == 0


@needs_tmux
def test_a_tmux_launch_writes_the_claims_sandbox_settings_first(brain: Path, tmp_path: Path,
                                                                launch_env: dict[str, str]) -> None:
    out = tmp_path / "argv.json"
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(out), "{settings}"])
    sess = opened(brain, "--scope", "wiki/", "--slug", "wiki-fence")
    run = run_bsi("launch", sess, "--json", brain=brain, env=launch_env)
    assert run.code == 0, run.err
    path = brain / ".brain" / "launch" / f"{sess}.json"
    assert recorded(out)["argv"] == [str(path)]
    assert json.loads(path.read_text())["sandbox"]["filesystem"]["allowWrite"] == ["/" + str(brain / "wiki")]


def test_the_dry_run_shows_hostile_claim_text_exactly_and_inert(brain: Path) -> None:
    """The argv printed for the pilot to review: bidi overrides, C1 and zero-width characters are escaped, not sent
    to the terminal, and the printed form still reads back as the exact argument."""
    write_config(brain, ["echo", "{story}"], tmux=False)
    story = "evil \x1b]0;x\x07 \u202eexe.gnp \u009b31m zw\u200bj — fine"
    sess = opened(brain, "--scope", "wiki/", "--story", story)
    run = run_bsi("launch", sess, "--dry-run", brain=brain)
    assert run.code == 0, run.err
    printed = run.out.splitlines()
    assert not [ch for ch in run.out if ord(ch) in (0x1B, 0x07, 0x9B, 0x202E, 0x200B)]
    assert json.loads(printed[1]) == story and "— fine" in printed[1]


def test_the_dry_run_prints_the_environment_its_help_promises(brain: Path) -> None:
    """`--dry-run`: "print the argv and environment, start nothing"; the argv first, one quoted argument a line."""
    # Before, the text output was the argv alone: BSI_SESSION, BRAIN_ROOT and where it would run were only in --json.
    write_config(brain, ["echo", "{story}"], tmux=False)
    sess = opened(brain, "--scope", "wiki/", "--story", "fine")
    assert "print the argv and environment" in run_bsi("launch", "--help", brain=brain).out
    run = run_bsi("launch", sess, "--dry-run", brain=brain)
    assert run.code == 0, run.err
    printed = run.out.splitlines()
    assert printed[:2] == ['"echo"', '"fine"']
    assert f"BSI_SESSION={sess}" in printed and f"BRAIN_ROOT={brain}" in printed
    assert printed[-1] == "in this terminal", printed


@needs_tmux
def test_attach_without_a_terminal_or_without_tmux_says_so_in_one_line(brain: Path, tmp_path: Path,
                                                                       launch_env: dict[str, str]) -> None:
    # Before, `bsi launch --attach ID` from a script exec'd tmux, which failed with exit 1 (the exit of a
    # preflight or lock result, SPEC 19) and "open terminal failed: not a terminal"; without tmux on PATH it
    # was an internal error (exit 70, FileNotFoundError).
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(tmp_path / "argv.json")])
    sess = opened(brain, "--scope", "wiki/", "--slug", "wiki-fix")
    assert run_bsi("launch", sess, brain=brain, env=launch_env).code == 0
    recorded(tmp_path / "argv.json")
    run = run_bsi("launch", "--attach", sess, brain=brain, env=launch_env, process=True)  # stdin: a pipe
    assert run.code == 64 and len(run.err.strip().splitlines()) == 1, run.err
    assert "needs a terminal" in run.err and "tmux" in run.err and run.out == ""
    bare = tmp_path / "bin"  # a PATH with git and Python, and no tmux
    bare.mkdir()
    for program in ("git", "python3"):
        found = shutil.which(program)
        assert found is not None
        (bare / program).symlink_to(found)
    env = {**launch_env, "PATH": f"{Path(sys.executable).parent}:{bare}"}
    run = run_bsi("launch", "--attach", sess, brain=brain, env=env, process=True)
    assert run.code == 64 and run.err.strip() == "bsi: attach: tmux is not installed", run.err


@needs_tmux
@pytest.mark.parametrize("command", [["no-such-agent-program", "{prompt}"], ["no-such-agent-program"]])
def test_a_program_that_is_not_installed_is_not_found_in_tmux_too(brain: Path, launch_env: dict[str, str],
                                                                  command: list[str]) -> None:
    # Before, a tmux launch said "launched in tmux window bsi-…:0" (exit 0) and the window died at once, where
    # `--here` says the program is not found (66): the pilot believed an agent was working on the claim.
    write_config(brain, command)
    sess = opened(brain, "--scope", "wiki/", "--slug", "wiki-fix")
    run = run_bsi("launch", sess, brain=brain, env=launch_env)
    assert run.code == 66 and run.err.strip() == "bsi: launch: program 'no-such-agent-program' not found on PATH"
    assert run.out == "" and tmux_windows(launch_env) == []
    assert not (brain / ".brain" / "launches" / f"{sess}.json").exists()
