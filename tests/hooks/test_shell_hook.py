"""`bsi hook pre-tool-use` on the agents' shell tools (SPEC 21.3), and on a brain-compose.yml that does not read."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import ok, run_bsi
from tests.conftest import copy_brain, template_from
from tests.hooks.test_hook_index import imported_by_hook, settle
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied, event, hook


def bash(brain: Path, command: str, session: str = AGENT) -> dict[str, Any]:
    """A Claude Code PreToolUse event for its Bash tool."""
    return {"session_id": session, "cwd": str(brain), "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command, "description": "x"}, "tool_use_id": "toolu_01"}


def other_client(brain: Path, agent: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    run = run_bsi("hook", "pre-tool-use", "--agent", agent, brain=brain, input=json.dumps(payload))
    return subprocess.CompletedProcess(["bsi", "hook", "pre-tool-use", "--agent", agent], run.code, run.out, run.err)


@pytest.fixture(scope="session")
def _satellite_template(_brain_template: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = template_from(_brain_template, tmp_path_factory, "satellite")
    pilot = ok(run_bsi("claim", "open", "--scope", "brain-engine/", "--type", "pilote", "--story", "p", brain=root))
    sat = ok(run_bsi("claim", "open", "--scope", "brain-engine/api/", "--parent", pilot, "--satellite-type", "code",
                     "--story", "s", "--agent-session", AGENT, brain=root))
    return root, pilot, sat


@pytest.fixture
def satellite(brain: Path, _satellite_template: tuple[Path, str, str]) -> tuple[Path, str, str]:
    """A pilot on brain-engine/ and its code satellite on brain-engine/api/ bound to AGENT (built once, copied)."""
    template, pilot, sat = _satellite_template
    return copy_brain(template, brain), pilot, sat


def test_a_paused_satellite_cannot_write_through_any_shell(satellite: tuple[Path, str, str]) -> None:
    brain, pilot, _sat = satellite
    command = "echo paused-bash >> brain-engine/api/routes.py"
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, command)))
    ok(run_bsi("gate", "pause", pilot, "hold on", brain=brain))
    for text in (command, "ls -la", "cat brain-engine/api/routes.py"):
        assert_denied(hook(brain, "pre-tool-use", bash(brain, text)), "paused", f"bsi gate resume {pilot}")
    gemini = other_client(brain, "gemini", {"session_id": AGENT, "cwd": str(brain), "hook_event_name": "BeforeTool",
                                            "tool_name": "run_shell_command", "tool_input": {"command": command}})
    assert gemini.returncode == 0 and json.loads(gemini.stdout)["decision"] == "deny" and pilot in gemini.stdout
    for tool_input in ({"cmd": command}, {"command": ["bash", "-lc", command]}):
        for tool in ("exec_command", "shell"):
            codex = other_client(brain, "codex", {"session_id": AGENT, "cwd": str(brain), "tool_name": tool,
                                                  "hook_event_name": "PreToolUse", "tool_input": tool_input})
            assert_denied(codex, "paused")


def test_shell_targets_are_checked_like_writes(satellite: tuple[Path, str, str]) -> None:
    brain, _pilot, sat = satellite
    holder = ok(run_bsi("claim", "open", "--scope", "docs/", "--story", "d", brain=brain))
    for command in ("cd brain-engine/api && touch new.py", "sed -i s/a/b/ brain-engine/api/x.py",
                    "cat claims/*.yml; bsi claim list; git status", "echo x > /tmp/bsi-outside.txt"):
        assert_allowed(hook(brain, "pre-tool-use", bash(brain, command)))
    reason = assert_denied(hook(brain, "pre-tool-use", bash(brain, "echo x >> docs/a.md")), "scope violation", sat)
    assert holder in reason  # a bound session's refusal names the claim holding the file
    assert_denied(hook(brain, "pre-tool-use", bash(brain, "cp x.md docs/", session="nobody")), holder)
    for command in (f"echo status: closed >> claims/{sat}.yml", "rm -rf locks", "git checkout -- BRAIN-INDEX.md"):
        assert_denied(hook(brain, "pre-tool-use", bash(brain, command)), "protocol file")
        assert_denied(hook(brain, "pre-tool-use", bash(brain, command, session="nobody")), "protocol file")


def test_an_empty_shell_command_fails_closed_when_bound(satellite: tuple[Path, str, str]) -> None:
    brain, _pilot, _sat = satellite
    empty = bash(brain, "")
    assert_denied(hook(brain, "pre-tool-use", empty), "names no command")
    assert hook(brain, "pre-tool-use", {**empty, "session_id": "nobody"}).returncode == 0


def test_the_allowed_shell_path_is_the_fast_one(satellite: tuple[Path, str, str]) -> None:
    brain, _pilot, _sat = satellite
    settle(brain)
    code, names = imported_by_hook(brain, bash(brain, "cd brain-engine/api && echo x >> routes.py | tee b.py"))
    assert code == 0
    heavy = {"brain_tui.core.brain", "brain_tui.core.records.model", "brain_tui.core.records.store",
             "ruamel.yaml", "yaml", "argparse", "textual", "rich", "typing", "dataclasses", "sqlite3", "subprocess"}
    assert not names & heavy, names & heavy
    code, names = imported_by_hook(brain, bash(brain, "echo x >> docs/a.md"))
    assert code == 2 and "brain_tui.core.rules.write_decision" in names  # a refusal always comes from the core


def test_an_unreadable_compose_file_keeps_unbound_writes_denied(brain: Path) -> None:
    (brain / "brain-compose.yml").write_text("hooks:\n  unclaimed_writes: deny\nzones: [\n")
    assert run_bsi("claim", "open", "--scope", "x/", brain=brain).code == 65
    free = event(brain, "Write", str(brain / "notes" / "n.md"), session="nobody")
    for _ in range(2):  # the second run may take the fast path (the index written by the first)
        assert_denied(hook(brain, "pre-tool-use", free), "brain-compose.yml", "line", "denied")
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, "cat notes/n.md && ls", session="nobody")))
    assert_denied(hook(brain, "pre-tool-use", bash(brain, "echo x > notes/n.md", session="nobody")),
                  "brain-compose.yml")


@pytest.mark.parametrize("command", ["cat <<E\\OF\nx\nEOF\necho hi > claims/x.yml",
                                     "echo \"<<EOF\"\necho hi > claims/x.yml",
                                     "cat << EOF-1\nx\nEOF-1\necho hi > claims/x.yml"])
def test_a_command_after_a_here_document_is_read_by_the_hook(brain: Path, command: str) -> None:
    """The shell runs the line after the here-document: its protocol target is refused, whatever the delimiter."""
    assert_denied(hook(brain, "pre-tool-use", bash(brain, command)), "claims/x.yml", "protocol file")


def test_a_command_line_too_long_to_read_whole_is_refused(brain: Path) -> None:
    """What lies past the part the hook reads may be a protocol file: the command is refused, not let through."""
    done = hook(brain, "pre-tool-use", bash(brain, "echo " + "a" * 70_000 + " > claims/x.yml", session="x"))
    assert_denied(done, "cannot be read whole")
    body = "x = 1\n" * 20_000
    long_file = hook(brain, "pre-tool-use", bash(brain, f"cat > notes.py <<'EOF'\n{body}EOF\n", session="x"))
    assert long_file.returncode == 0, long_file


@pytest.mark.parametrize("command", [
    "HOME=claims; echo x > ~/a.yml",
    "export HOME=claims; cd; touch a.yml",
    "ln -s ../claims brain-engine/api/c; echo x > brain-engine/api/c/a.yml",
    "shopt -s expand_aliases\nalias r='rm -rf'\nr claims",
    "printf 'w claims/a.yml\\n' | ed brain-engine/api/a.py",
    "ed -s brain-engine/api/a.py <<< 'w claims/a.yml'",
    "zip -r claims/a.zip brain-engine/api",
    "tar -cf claims/a.tar brain-engine/api",
    "xargs rm -rf <<< claims",
    "echo claims | xargs rm -rf",
    "awk '{print > \"claims/a.yml\"}' brain-engine/api/a.py",
    "python3 -c \"open('claims/a.yml', 'w').write('x')\"",
])
def test_a_write_the_line_plainly_shows_is_refused_to_a_bound_session(satellite: tuple[Path, str, str],
                                                                       command: str) -> None:
    brain, _pilot, _sat = satellite
    assert hook(brain, "pre-tool-use", bash(brain, command)).returncode == 2, command


@pytest.mark.parametrize("command", ["echo brain-engine/api/a.py | xargs cat",
                                     "python3 -c \"print(open('claims/x.yml').read())\"",
                                     "tar -tf brain-engine/api/a.tar", "alias ll='ls -l'; ll brain-engine"])
def test_ordinary_reads_of_those_programs_pass(satellite: tuple[Path, str, str], command: str) -> None:
    brain, _pilot, _sat = satellite
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, command)))


@pytest.fixture(scope="session")
def _notes_holder_template(_brain_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = template_from(_brain_template, tmp_path_factory, "notes-holder")
    (root / "notes" / "sub").mkdir(parents=True, exist_ok=True)
    ok(run_bsi("claim", "open", "--scope", "notes/", "--story", "n", "--agent-session", AGENT, brain=root))
    return root


@pytest.fixture
def notes_holder(brain: Path, _notes_holder_template: Path) -> Path:
    """A bound session holding `notes/`, with `notes/sub/` there (a write of the whole `notes/`, the folder
    itself too, is outside that scope, as `rsync -a x/ notes/` is); built once, copied per test."""
    return copy_brain(_notes_holder_template, brain)


@pytest.mark.parametrize(("refused", "allowed"), [
    ("tar xf a.tar", "cd notes/sub && tar xf ../a.tar"),
    ("tar -xzf a.tgz", "tar -xzf a.tgz -C notes/sub"),
    ("tar --extract -f a.tar", "cd notes/sub && tar --extract -f ../a.tar"),
    ("unzip a.zip", "unzip a.zip -d notes/sub"),
    ("7z x a.7z", "7z x a.7z -onotes/sub"),
    ("cpio -i < a.cpio", "cd notes/sub && cpio -i < ../a.cpio"),
    ("bsdtar -x -f a.tar", "bsdtar -x -f a.tar -C notes/sub"),
])
def test_an_extraction_into_the_folder_it_runs_in_is_a_write_below_it(notes_holder: Path, refused: str,
                                                                      allowed: str) -> None:
    assert hook(notes_holder, "pre-tool-use", bash(notes_holder, refused)).returncode == 2, refused
    assert_allowed(hook(notes_holder, "pre-tool-use", bash(notes_holder, allowed)))


@pytest.mark.parametrize("command", ["tar tf a.tar", "unzip -l a.zip", "7z l a.7z", "cpio -t < a.cpio"])
def test_listing_an_archive_stays_allowed(notes_holder: Path, command: str) -> None:
    assert_allowed(hook(notes_holder, "pre-tool-use", bash(notes_holder, command)))


@pytest.mark.parametrize(("refused", "allowed"), [
    ("python3 -m json.tool notes/a.json claims/a.yml", "python3 -m json.tool notes/a.json notes/sub/b.json"),
    ("python3 -m zipfile -e a.zip .brain", "python3 -m zipfile -e a.zip notes/sub"),
    ("python3 -m tarfile -e a.tar", "cd notes/sub && python3 -m tarfile -e ../a.tar"),
    ("python3 -m venv locks", "python3 -m venv notes/sub/env"),
    ("python3 -m pip install --target signals x", "pip install -t notes/sub/lib x"),
])
def test_a_python_module_writing_a_protocol_folder_is_refused(notes_holder: Path, refused: str, allowed: str) -> None:
    assert hook(notes_holder, "pre-tool-use", bash(notes_holder, refused)).returncode == 2, refused
    assert_allowed(hook(notes_holder, "pre-tool-use", bash(notes_holder, allowed)))


def test_json_tool_printing_stays_allowed(notes_holder: Path) -> None:
    assert_allowed(hook(notes_holder, "pre-tool-use", bash(notes_holder, "python3 -m json.tool notes/a.json")))


@pytest.mark.parametrize(("refused", "allowed"), [
    ("xargs -a list rm -rf", "xargs -a list grep -l x"),
    ("xargs --arg-file=list mv -t notes/sub", "xargs --arg-file=list cp -t notes/sub"),
])
def test_xargs_writing_arguments_from_a_file_is_refused(notes_holder: Path, refused: str, allowed: str) -> None:
    assert_denied(hook(notes_holder, "pre-tool-use", bash(notes_holder, refused)), "xargs")
    assert_allowed(hook(notes_holder, "pre-tool-use", bash(notes_holder, allowed)))


@pytest.mark.parametrize("command", ["xargs grep x < list", "ls | xargs grep x", "awk -f prog.awk notes/a",
                                     "awk -f notes/prog.awk data > notes/sub/out"])
def test_xargs_and_awk_reading_stay_allowed(notes_holder: Path, command: str) -> None:
    assert_allowed(hook(notes_holder, "pre-tool-use", bash(notes_holder, command)))


@pytest.mark.parametrize("command", [
    "cp --target-dir=claims brain-engine/api/x", "cp --target claims brain-engine/api/x",
    "mv --targ=claims brain-engine/api/x", "install --t claims brain-engine/api/x",
    "ln -s --target claims brain-engine/api/x", "cp --li claims/a.yml brain-engine/api/h",
    "sed --in-pl s/a/b/ claims/x.yml", "sed -i --expr=s/a/b/ claims/x.yml",
    "tar --extr -f a.tar -C claims", "tar --cr -f claims/a.tar brain-engine/api",
    "sort --out=claims/x.yml brain-engine/api/a", "cp --target-dir=brain-engine brain-engine/api/x",
    "install --directory claims/d", "install --dir claims/d", "mktemp --tmp=claims",
    "iconv -f utf-8 --out=claims/x.yml brain-engine/api/a", "wget --output-doc=claims/x.yml https://e.org",
    "nice --adj 5 rm -rf claims", "nice --adjustment 5 rm -rf claims", "timeout --sig KILL 5 rm -rf claims",
    "env --ch claims touch a.yml", "sudo --us root rm -rf claims", "xargs --arg=list rm -rf",
])
def test_a_long_option_cut_short_is_refused_as_the_whole_one(satellite: tuple[Path, str, str], command: str) -> None:
    """GNU programs take a unique prefix of a long option as the option: its write is read as such."""
    brain, _pilot, _sat = satellite
    assert hook(brain, "pre-tool-use", bash(brain, command)).returncode == 2, command


@pytest.mark.parametrize("command", [
    "cp a.txt brain-engine/api/", "sed -n 1p brain-engine/api/f", "mkdir -p brain-engine/api/x",
    "rm -rf brain-engine/api/build", "mkdir --mo 755 brain-engine/api/x",
    "touch --refer claims/x.yml brain-engine/api/a", "truncate --si 0 brain-engine/api/a",
    "tar --to-std -xf a.tar",
])
def test_everyday_lines_and_cut_short_options_pass_in_scope(satellite: tuple[Path, str, str], command: str) -> None:
    brain, _pilot, _sat = satellite
    assert_allowed(hook(brain, "pre-tool-use", bash(brain, command)))


@pytest.mark.parametrize("command", ["chmod --reference=brain-engine/api/a claims/x.yml",
                                     "chmod --refer brain-engine/api/a claims/x.yml", "chmod -w claims/x.yml",
                                     "chmod -Rw claims", "chattr -i claims/x.yml", "setfacl -b claims/x.yml"])
def test_a_mode_or_attribute_written_to_a_protocol_file_is_refused(satellite: tuple[Path, str, str],
                                                                   command: str) -> None:
    brain, _pilot, _sat = satellite
    assert_denied(hook(brain, "pre-tool-use", bash(brain, command)), "protocol file")
