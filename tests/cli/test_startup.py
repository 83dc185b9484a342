"""`bsi` starts without the core when it only shows help or refuses a command line (issue 18, start-up).

What a process imports is deterministic, so these tests check it (the time it costs is measured only in
`benchmarks/`, `--only-startup`).
"""

from __future__ import annotations

import ast
import importlib
import json
import shutil
import subprocess
import sys
from typing import Any

import pytest

from tests.bsi import NOW, clean_env, ok, run_bsi
from tests.hooks.test_hook_index import settle

cli_main = importlib.import_module("brain_tui.cli.main")

#: Modules a start-up that only parses must not load: the core, the YAML libraries, psutil, Textual.
HEAVY = ("brain_tui.core", "ruamel", "yaml", "psutil", "textual")

PROBE = (
    "import sys\n"
    "from brain_tui.cli.main import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "heavy = sorted(m for m in sys.modules if m.split('.')[0] in {'ruamel', 'yaml', 'psutil', 'textual'}\n"
    "               or m == 'brain_tui.core' or m.startswith('brain_tui.core.'))\n"
    "sys.stderr.write('\\nPROBE ' + repr((code, heavy)) + '\\n')\n"
)


def _probe(*args: str) -> tuple[Any, list[str], str]:
    """Run `bsi ARGS` in a fresh interpreter: (exit code, heavy modules loaded, stdout)."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          env=clean_env(), check=False, timeout=120)
    line = done.stderr.rstrip().splitlines()[-1]
    assert line.startswith("PROBE "), done.stderr[-500:]
    code, heavy = ast.literal_eval(line[len("PROBE "):])
    return code, heavy, done.stdout


@pytest.mark.parametrize(("args", "exit_code"), [
    (("--help",), 0),
    (("claim", "--help"), 0),
    (("claim", "open", "--help"), 0),
    (("--json", "gate", "--help"), 0),
    (("--version",), 0),
    (("claim", "open", "--no-such-flag"), 64),
    (("no-such-command",), 64),
    (("claim",), 64),
    ((), 64),
])
def test_help_version_and_usage_errors_load_no_core(args: tuple[str, ...], exit_code: int) -> None:
    code, heavy, _ = _probe(*args)
    assert code == exit_code
    assert heavy == []


def test_a_usage_error_under_json_is_still_one_json_document_without_the_core() -> None:
    code, heavy, out = _probe("--json", "claim", "open", "--no-such-flag")
    assert (code, heavy) == (64, [])
    doc = json.loads(out)
    assert doc["exit"] == 64 and "required: --scope" in doc["error"]


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    from brain_tui import __version__

    with pytest.raises(SystemExit) as exc:
        cli_main.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"bsi {__version__}"


def _subparsers(parser: Any) -> dict[str, Any]:
    action = next(a for a in parser._actions if a.dest == "command")
    return dict(action.choices)


def test_building_one_command_gives_it_the_same_parser_as_the_whole_tree() -> None:
    full = cli_main.build_parser()
    commands = _subparsers(full)
    assert {"claim", "gate", "signal", "hook", "hooks", "mcp", "launch", "attention"} <= set(commands)
    for name, whole in commands.items():
        only = _subparsers(cli_main.build_parser(only=name))
        assert set(only) == set(commands)  # every other command keeps its name for `--help` and errors
        assert only[name].format_help() == whole.format_help(), name


def test_the_top_level_help_is_the_same_with_or_without_the_tree() -> None:
    assert cli_main.build_parser(only="").format_help() == cli_main.build_parser().format_help()


@pytest.mark.parametrize(("argv", "command"), [
    (["claim", "list"], "claim"),
    (["--brain", "claim", "gate", "status", "x"], "gate"),  # a value of --brain is not the command
    (["--now", "2026-11-29T10:00:00Z", "--json", "signal", "list"], "signal"),
    (["--brain=b", "check-scope", "a/"], "check-scope"),
    (["--json"], ""),
    (["--json", "--", "claim", "list"], "claim"),
    (["--", "--brain"], "--brain"),
])
def test_the_command_word_is_found_past_the_global_flags(argv: list[str], command: str) -> None:
    assert cli_main.words_of(argv)[0] == command


def test_a_command_the_guess_missed_is_parsed_by_the_whole_tree(capsys: pytest.CaptureFixture[str]) -> None:
    # `--br` is argparse's abbreviation of `--brain`: the guess takes the path for the command, so `claim` was
    # not built; the whole tree parses the line, and the brain is looked for (66), no usage error (64).
    assert cli_main.words_of(["--br", "/no/such/brain", "claim", "list"])[0] == "/no/such/brain"
    assert cli_main.main(["--br", "/no/such/brain", "claim", "list"]) == 66
    assert "usage" not in capsys.readouterr().err


def test_the_parsers_copies_of_core_constants_match_the_core() -> None:
    from brain_tui.cli import gates, preflight
    from brain_tui.core import facade
    from brain_tui.core.rules import locks

    assert all(callable(getattr(facade.Gates, action, None)) for action in gates.GATE_ACTIONS)
    assert preflight.DEFAULT_LOCK_TTL_MIN == locks.DEFAULT_LOCK_TTL_MIN


#: Modules only a write loads: the round-trip YAML writer, git, the write journal, process probes.
WRITE_PATH = ("ruamel", "psutil", "subprocess", "brain_tui.core.sync.gitops", "brain_tui.core.records.journal",
              "brain_tui.core.write_path")

READ_PROBE = (
    "import sys\n"
    "watched = sys.argv.pop(1).split(',')\n"
    "from brain_tui.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "loaded = sorted(m for m in sys.modules if any(m == w or m.startswith(w + '.') for w in watched))\n"
    "sys.stderr.write('\\nPROBE ' + repr((code, loaded)) + '\\n')\n"
)

#: The read commands of the goal "read commands at 10 claims" (`{sess}`: the demo's first claim).
READS = [
    ("claim", "list"),
    ("--json", "claim", "list"),
    ("claim", "show", "{sess}"),
    ("check-scope", "projects/free/x.py"),
    ("--json", "check-scope", "projects/free/x.py"),
    ("attention",),
    ("--json", "attention"),
    ("gate", "status", "{sess}"),
    ("preflight", "check", "{sess}", "projects/free/x.py"),
    ("signal", "list"),
    ("--json", "signal", "list"),
]


def _read_loads(brain: Any, args: tuple[str, ...], watched: tuple[str, ...]) -> list[str]:
    """Run the read `bsi ARGS` on `brain` in a fresh interpreter: which of the `watched` modules it loaded."""
    # The reads before the probed one run in this process (tests/bsi.py): only the probe's imports are watched,
    # and the caches they leave in `.brain/` are the same files a process leaves.
    sess = json.loads(ok(run_bsi("--json", "claim", "list", brain=brain)))["claims"][0]["sess_id"]
    # A whole read too: `claim list` reads only the live claims (the closed set), so the finished ones
    # would be parsed for the first time by a read that wants them (`signal list`, `gate status`).
    ok(run_bsi("--json", "claim", "list", "--all", brain=brain))
    argv = ["--brain", str(brain), "--now", NOW, *(a.replace("{sess}", sess) for a in args)]
    done = subprocess.run([sys.executable, "-c", READ_PROBE, ",".join(watched), *argv], capture_output=True,
                          text=True, env=clean_env(), check=False, timeout=120)
    line = done.stderr.rstrip().splitlines()[-1]
    assert line.startswith("PROBE "), done.stderr[-500:]
    code, loaded = ast.literal_eval(line[len("PROBE "):])
    assert code in (0, 1, 2, 3, 4, 5, 6, 10), done.stderr[-500:]  # an answer (free, conflict, a refusal code)
    return list(loaded)


@pytest.mark.parametrize("args", READS)
def test_a_read_command_loads_no_write_path(demo_brain: Any, args: tuple[str, ...]) -> None:
    assert _read_loads(demo_brain, args, WRITE_PATH) == []


#: What a read of a brain whose brain-compose.yml is plain `key: value` YAML (`timezone: UTC`) does without
#: (start-up, issue 18): PyYAML, argparse's `shutil` (bz2, lzma), OpenSSL's `hashlib`, `zoneinfo`, and
#: `dataclasses` with its `inspect` (the records are `brain_tui.core.record`'s), and `typing` (its names are
#: for the type checker: `if TYPE_CHECKING:` imports).
READ_SPARES = ("yaml", "shutil", "hashlib", "_hashlib", "zoneinfo", "dataclasses", "inspect", "typing")


@pytest.mark.parametrize("args", READS)
def test_a_read_command_of_a_plain_config_loads_no_yaml_library(demo_brain: Any, args: tuple[str, ...]) -> None:
    assert _read_loads(demo_brain, args, READ_SPARES) == []


@pytest.mark.parametrize("args", [("attention",), ("--json", "attention")])
def test_attention_without_bound_agents_loads_no_transcript_git_or_claim_rules(demo_brain: Any,
                                                                              args: tuple[str, ...]) -> None:
    watched = ("brain_tui.core.sessions.transcript", "brain_tui.core.sessions.launch", "brain_tui.core.sync",
               "brain_tui.core.rules.claims")
    assert _read_loads(demo_brain, args, watched) == []


@pytest.mark.parametrize("args", [("check-scope", "projects/free/x.py"),
                                  ("--json", "check-scope", "projects/free/x.py")])
def test_check_scope_without_options_loads_no_claim_rules(demo_brain: Any, args: tuple[str, ...]) -> None:
    assert _read_loads(demo_brain, args, ("brain_tui.core.rules.claims", "brain_tui.core.rules.triggers")) == []


def _printed(code: str) -> list[str]:
    """The lines `code` prints, run in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(),
                          check=True, timeout=120)
    return done.stdout.splitlines()


def test_the_index_renderers_patterns_are_compiled_only_when_used() -> None:
    probe = ("import re\n"
             "import brain_tui.core.records.index as index\n"
             "names = ('_OURS_RE', '_THEIRS_RE', '_BLOCK_RE', '_FENCE_MIDDLE_RE', '_LINE_BREAK_RE')\n"
             "sources = {getattr(index, name).pattern for name in names}\n"
             "print(sorted(key[1] in sources for key in re._cache))\n"
             "print(index._BLOCK_RE.sub('', index.START + 'x' + index.END + 'kept'))\n")
    compiled_at_import, after_use = _printed(probe)
    assert "True" not in compiled_at_import
    assert after_use == "kept"


def test_preflight_check_of_an_open_claim_loads_no_claim_rules_or_change_set(demo_brain: Any) -> None:
    watched = ("brain_tui.core.rules.claims", "brain_tui.core.rules.triggers", "brain_tui.core.rules.tiers",
               "brain_tui.core.records.changes")
    assert _read_loads(demo_brain, ("preflight", "check", "{sess}", "projects/free/x.py"), watched) == []


@pytest.mark.parametrize("args", [("gate", "status", "{sess}"), ("--json", "gate", "status", "{sess}")])
def test_gate_status_loads_no_rule_of_another_area(demo_brain: Any, args: tuple[str, ...]) -> None:
    watched = ("brain_tui.core.rules.claims", "brain_tui.core.rules.gates", "brain_tui.core.rules.locks",
               "brain_tui.core.rules.signals", "brain_tui.core.rules.circuit", "brain_tui.core.rules.authority",
               "brain_tui.core.environment.breath", "brain_tui.core.facade_breath", "brain_tui.core.records.changes")
    assert _read_loads(demo_brain, args, watched) == []


@pytest.mark.parametrize("args", [("signal", "list"), ("--json", "signal", "list")])
def test_signal_list_loads_no_sender_rules_text_limits_or_change_set(demo_brain: Any, args: tuple[str, ...]) -> None:
    watched = ("brain_tui.core.rules.authority", "brain_tui.core.records.written", "brain_tui.core.paths.limits",
               "brain_tui.core.records.changes")
    assert _read_loads(demo_brain, args, watched) == []


@pytest.mark.parametrize("args", [("claim", "list"), ("gate", "status", "{sess}")])
def test_a_read_of_a_brain_outside_git_loads_no_temp_folder_or_archive_modules(demo_brain: Any, tmp_path: Any,
                                                                              args: tuple[str, ...]) -> None:
    # Outside git the closed set asks git once and reads every claim file: git's environment is all it needs.
    plain = tmp_path / "plain"
    shutil.copytree(demo_brain, plain, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    assert _read_loads(plain, args, ("shutil", "tempfile", "bz2", "lzma")) == []


#: What a refused hook write (an unbound session's Edit inside an open claim) does without: the session-start
#: and prompt handlers, the agents' activity records, the shell parser, the write path, and the preflight's
#: checks and locks (a bound session's decision only).
HOOK_SPARES = ("brain_tui.hooks.context", "brain_tui.core.sessions.agents", "brain_tui.core.sessions.shell_targets",
               "shlex", "brain_tui.core.write_path", "ruamel", "subprocess", "brain_tui.core.rules.preflight",
               "brain_tui.core.rules.locks", "brain_tui.core.records.changes")


def test_a_refused_hook_write_loads_no_agent_records_shell_parser_write_path_or_checks(demo_brain: Any) -> None:
    claim = next(c for c in json.loads(ok(run_bsi("--json", "claim", "list", brain=demo_brain)))["claims"]
                 if c["status"] == "open")
    scope = claim["scope"] if isinstance(claim["scope"], str) else claim["scope"][0]
    target = demo_brain / (scope + "x.py" if scope.endswith("/") else scope)
    event = json.dumps({"session_id": "probe-unbound", "transcript_path": "/tmp/probe.jsonl", "cwd": str(demo_brain),
                        "hook_event_name": "PreToolUse", "tool_name": "Edit",
                        "tool_input": {"file_path": str(target), "old_string": "a", "new_string": "b"}})
    env = clean_env(drop=("BSI_*", "CLAUDE_*", "GEMINI_*", "CODEX_*", "BRAIN_*", "GIT_*"))
    # The agent's loop: the hook's index (`core.hook_index`) is built by a call once the records are out of its
    # racy window (2 s, ctime included: outlived on the hook's clock); what is watched is a call after it.
    settle(demo_brain)
    argv = ["--brain", str(demo_brain), "--now", NOW, "hook", "pre-tool-use"]
    done = subprocess.run([sys.executable, "-c", READ_PROBE, ",".join(HOOK_SPARES), *argv], input=event,
                          capture_output=True, text=True, env=env, check=False, timeout=120)
    line = done.stderr.rstrip().splitlines()[-1]
    assert line.startswith("PROBE "), done.stderr[-500:]
    code, loaded = ast.literal_eval(line[len("PROBE "):])
    assert code == 2, done.stderr[-500:]  # refused: the file is inside the claim's scope
    assert '"deny"' in done.stdout
    assert loaded == []


def test_the_preflight_re_exports_the_codes_the_write_decision_names() -> None:
    from brain_tui.core.rules import preflight, preflight_codes

    names = ("GO", "SCOPE_VIOLATION", "FILE_LOCKED", "CIRCUIT_TRIPPED", "CLAIM_NOT_OPEN", "ZONE_VIOLATION",
             "WRONG_BRANCH", "CHECK_NAMES")
    assert all(getattr(preflight, name) is getattr(preflight_codes, name) for name in names)
    assert [preflight.CHECK_NAMES[code] for code in range(7)] == ["go", "scope", "lock", "circuit", "claim", "zone",
                                                                   "branch"]


def test_a_read_of_a_brain_outside_git_runs_no_git(demo_brain: Any, tmp_path: Any) -> None:
    # No `.git` (nor a bare repository's HEAD) in the brain or above it: git has nothing to find, so it is not
    # asked (a process, and `subprocess` to start it).
    plain = tmp_path / "plain"
    shutil.copytree(demo_brain, plain, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    for args in (("--json", "claim", "list"), ("signal", "list"), ("gate", "status", "{sess}")):
        assert _read_loads(plain, args, ("subprocess", "brain_tui.core.sync.gitops")) == [], args


def test_module_level_patterns_of_the_core_compile_on_first_use() -> None:
    probe = ("import re, sys\n"
             "import brain_tui.core.brain, brain_tui.core.rules.signals, brain_tui.core.sessions.agent_files\n"
             "from brain_tui.core.lazy_re import LazyPattern\n"
             "kinds = (re.Pattern, LazyPattern)\n"
             "found = {(name, key): value.pattern for name, module in list(sys.modules.items())\n"
             "         if name.startswith('brain_tui.core.') for key, value in vars(module).items()\n"
             "         if isinstance(value, kinds)}\n"
             "compiled = {source for _, source, *_ in re._cache}\n"
             "print(len(found), sorted(f'{n}.{k}' for (n, k), source in found.items() if source in compiled))\n")
    count, compiled_at_import = _printed(probe)[0].split(" ", 1)
    assert int(count) >= 25  # the ids, scopes, clock, config, claim scans, signal and agent names
    assert ast.literal_eval(compiled_at_import) == []


#: What `claim list`, `check-scope`, `attention`, `gate status`, `preflight check` and `signal list` import of
#: the command line: its own command module (COMMAND_MODULES), never the eleven others.
@pytest.mark.parametrize(("args", "module"), [
    (("--json", "claim", "list"), "claims"),
    (("check-scope", "projects/free/x.py"), "claims"),
    (("attention",), "attention"),
    (("gate", "status", "{sess}"), "gates"),
    (("preflight", "check", "{sess}", "projects/free/x.py"), "preflight"),
    (("signal", "list"), "signals"),
])
def test_a_read_command_imports_its_command_module_alone(demo_brain: Any, args: tuple[str, ...], module: str) -> None:
    loaded = _read_loads(demo_brain, args, tuple(f"brain_tui.cli.{name}" for name in cli_main.COMMAND_MODULES))
    assert loaded == [f"brain_tui.cli.{module}"]


def test_the_command_modules_register_the_commands_the_table_names() -> None:
    from brain_tui.cli.common import global_parent

    class Names:
        def __init__(self) -> None:
            self.names: list[str] = []

        def add_parser(self, name: str, **_: Any) -> Any:
            self.names.append(name)
            return cli_main._Unbuilt()

    for module, commands in cli_main.COMMAND_MODULES.items():
        names = Names()
        importlib.import_module(f"brain_tui.cli.{module}").register(names, global_parent())
        assert tuple(names.names) == commands, module
    assert list(_subparsers(cli_main.build_parser())) == [c for cs in cli_main.COMMAND_MODULES.values() for c in cs]


def test_building_one_action_gives_it_the_same_parsers_as_the_whole_tree() -> None:
    whole = _subparsers(cli_main.build_parser())
    checked = 0
    for name, command in whole.items():
        actions = next((a.choices for a in command._actions if a.dest == f"{name}_command"), None)
        for action, parser in (actions or {}).items():
            built = _subparsers(cli_main.build_parser(only=name, action=action))
            assert set(built) == set(whole)
            assert built[name].format_help() == command.format_help(), name
            assert list(_actions_of(built[name], name)) == list(actions), name
            assert _actions_of(built[name], name)[action].format_help() == parser.format_help(), (name, action)
            checked += 1
    assert checked >= 20


def _actions_of(parser: Any, name: str) -> Any:
    return next(a.choices for a in parser._actions if a.dest == f"{name}_command")


@pytest.mark.parametrize("argv", [["--help", "claim"], ["-h", "gate", "status", "x"], ["--he", "signal", "list"]])
def test_the_top_level_help_asked_before_a_command_is_the_whole_trees(argv: list[str],
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli_main.main(argv)
    assert exc.value.code == 0
    assert capsys.readouterr().out == cli_main.build_parser().format_help()


def test_no_command_after_a_flag_that_took_the_command_word_shows_the_whole_help(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["--br", "claim"]) == 64  # `--br` (an abbreviation of `--brain`) took `claim`
    assert capsys.readouterr().err == cli_main.build_parser().format_help()


@pytest.mark.parametrize(("argv", "message"), [
    (["claim", "lst"], "argument ACTION: invalid choice: 'lst' (choose from 'open', 'close',"),
    (["--br", "x", "clam", "list"], "argument COMMAND: invalid choice: 'clam' (choose from 'init', 'demo', 'index',"),
    (["--br", "claim", "list"], "argument COMMAND: invalid choice: 'list' (choose from 'init', 'demo', 'index',"),
])
def test_an_invalid_choice_lists_every_command_or_action(argv: list[str], message: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(argv) == 64
    assert message in capsys.readouterr().err
