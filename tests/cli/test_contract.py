"""`bsi` as a contract (SPEC 19, 13): for every command, the exit codes it gives and the shape of its `--json`
document (keys and value types, written out below), table-driven, so a change of either fails here.

The rules behind each answer are tested in process against `Brain` (tests/rules, tests/unit); this file
holds what the command line adds: the exit code, one JSON document on stdout, the keys SPEC 19 names.
Every row runs on its own copy of one brain (`world`): a pilot over `be/` with a code satellite, a claim
waiting for a human, a free claim holding the lock of `README.md` (the satellite holds `be/api.py`'s), a stale
one, a closed one, one signal, one breath sprint.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.bsi import NOW, ok, run_bsi
from tests.conftest import tree_bytes

EARLY = "2026-11-29T07:00:00Z"


def skeleton(value: Any) -> Any:
    """A JSON value's shape: objects keep their keys, lists the shape of their first item, scalars their type."""
    if isinstance(value, dict):
        return {key: skeleton(item) for key, item in value.items()}
    if isinstance(value, list):
        return [skeleton(value[0])] if value else []
    return type(value).__name__


@pytest.fixture(scope="module")
def _world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("contract") / "brain"
    ok(run_bsi("init", str(root), cwd=root.parent))
    ids = {"stale": ok(run_bsi("claim", "open", "--scope", "s/", "--ttl", "1h", "--slug", "stale", brain=root,
                               now=EARLY))}
    ok(run_bsi("watchdog", brain=root))
    ids["pilot"] = ok(run_bsi("claim", "open", "--scope", "be/", "--type", "pilote", "--slug", "pilot", brain=root))
    ids["leaf"] = ok(run_bsi("claim", "open", "--scope", "be/api.py", "--parent", ids["pilot"],
                             "--satellite-type", "code", "--slug", "leaf", brain=root))
    ids["waiting"] = ok(run_bsi("claim", "open", "--scope", "w/", "--slug", "waiting", brain=root))
    ok(run_bsi("gate", "request", ids["waiting"], "deploy?", brain=root))
    ids["free"] = ok(run_bsi("claim", "open", "--scope", "f/", "--slug", "free", brain=root))
    ids["closed"] = ok(run_bsi("claim", "open", "--scope", "c/", "--slug", "closed", brain=root))
    ok(run_bsi("claim", "close", ids["closed"], "--status", "ok", brain=root))
    ok(run_bsi("lock", "acquire", "README.md", ids["free"], brain=root))
    ok(run_bsi("lock", "acquire", "be/api.py", ids["leaf"], brain=root))
    ok(run_bsi("breath", "inhale", "sprint-a", "--agent", "dev", "be/api.py", brain=root))
    ids["sig"] = ok(run_bsi("signal", "send", "--to", ids["pilot"], "--type", "INFO", "--from", ids["leaf"],
                            "hello", brain=root))
    return root, ids


@pytest.fixture
def world(_world: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh copy of the module's brain and its IDs."""
    root, ids = _world
    copy = tmp_path / "brain"
    shutil.copytree(root, copy, symlinks=True)
    return copy, ids


# (row name, command line with {name} for an ID of `world`, exit code)
CASES: list[tuple[str, list[str], int]] = [
    # -- claims (SPEC 6)
    ("open", ["claim", "open", "--scope", "n/", "--slug", "new"], 0),
    ("open conflict", ["claim", "open", "--scope", "be/x.py"], 10),
    ("open bad scope", ["claim", "open", "--scope", "../out"], 65),
    ("open bad ttl", ["claim", "open", "--scope", "n/", "--ttl", "9h"], 65),
    ("open unknown parent", ["claim", "open", "--scope", "n/", "--parent", "sess-20261129-1000-nobody"], 66),
    ("open no scope", ["claim", "open"], 64),
    ("close", ["claim", "close", "{free}", "--status", "ok"], 0),
    ("close tier 2 red", ["claim", "close", "{leaf}", "--tests-total", "2", "--tests-passed", "1",
                          "--tests-failed", "1"], 11),
    ("close waiting", ["claim", "close", "{waiting}", "--status", "ok"], 12),
    ("close unknown", ["claim", "close", "sess-20261129-1000-nobody"], 66),
    ("renew", ["claim", "renew", "{free}", "--ttl", "1h"], 0),
    ("renew stale", ["claim", "renew", "{stale}"], 12),
    ("release", ["claim", "release", "{stale}", "--reason", "crashed"], 0),
    ("release open", ["claim", "release", "{free}", "--reason", "why"], 12),
    ("show", ["claim", "show", "{leaf}"], 0),
    ("show unknown", ["claim", "show", "sess-20261129-1000-nobody"], 66),
    ("show bad id", ["claim", "show", "not-an-id"], 65),
    ("list", ["claim", "list"], 0),
    ("list bad status", ["claim", "list", "--status", "bogus"], 65),
    ("check-scope free", ["check-scope", "n/"], 0),
    ("check-scope conflict", ["check-scope", "be/"], 10),
    ("watchdog", ["watchdog"], 0),
    # -- gates (SPEC 6.3, 6.4)
    ("gate request", ["gate", "request", "{free}", "ok?"], 0),
    ("gate approve", ["gate", "approve", "{waiting}", "go"], 0),
    ("gate approve open", ["gate", "approve", "{free}"], 12),
    ("gate reject", ["gate", "reject", "{waiting}", "no"], 0),
    ("gate pause", ["gate", "pause", "{pilot}", "urgent"], 0),
    ("gate resume open", ["gate", "resume", "{free}"], 12),
    ("gate abort", ["gate", "abort", "{free}", "stop"], 0),
    ("gate status", ["gate", "status", "{waiting}"], 0),
    ("gate status unknown", ["gate", "status", "sess-20261129-1000-nobody"], 66),
    # -- signals (SPEC 7)
    ("signal send", ["signal", "send", "--to", "{leaf}", "--type", "INFO", "--from", "{pilot}", "hi"], 0),
    ("signal list", ["signal", "list"], 0),
    ("signal ack", ["signal", "ack", "{sig}"], 0),
    ("signal ack unknown", ["signal", "ack", "sig-20261129-1000-nobody"], 66),
    ("signal archive", ["signal", "archive"], 0),
    # -- preflight and circuit breaker (SPEC 9, 10)
    ("preflight go", ["preflight", "check", "{leaf}", "be/api.py"], 0),
    ("preflight not open", ["preflight", "check", "{waiting}", "w/a.md"], 4),
    ("preflight scope", ["preflight", "check", "{leaf}", "elsewhere.md"], 1),
    ("preflight lock", ["preflight", "check", "{pilot}", "be/api.py"], 2),
    ("preflight fail", ["preflight", "fail", "{leaf}"], 0),
    ("preflight reset", ["preflight", "reset", "{leaf}"], 0),
    ("preflight status", ["preflight", "status", "{leaf}"], 0),
    # -- locks (SPEC 9)
    ("lock acquire", ["lock", "acquire", "f/a.md", "{free}", "30"], 0),
    ("lock acquire held", ["lock", "acquire", "README.md", "{pilot}"], 1),
    ("lock acquire bad ttl", ["lock", "acquire", "f/a.md", "{free}", "0"], 65),
    ("lock release", ["lock", "release", "README.md", "{free}"], 0),
    ("lock release not holder", ["lock", "release", "README.md", "{pilot}"], 2),
    ("lock check held", ["lock", "check", "README.md"], 1),
    ("lock check free", ["lock", "check", "f/a.md"], 0),
    ("lock list", ["lock", "list"], 0),
    ("lock cleanup", ["lock", "cleanup"], 0),
    # -- the rest of SPEC 19 and 20
    ("init", ["init", "{fresh}"], 0),
    ("init a file", ["init", "{fresh}/BRAIN-INDEX.md"], 65),
    ("demo", ["demo", "{fresh}-demo"], 0),
    ("demo inside a brain", ["demo", "{fresh}/demo"], 65),
    ("breath reference", ["breath", "reference", "sprint-a", "be/api.py"], 0),
    ("breath reference unknown", ["breath", "reference", "sprint-never", "x.md"], 66),
    ("breath expire", ["breath", "expire", "sprint-a", "be/api.py"], 0),
    ("hooks status", ["hooks", "status"], 0),
    ("hooks install", ["hooks", "install"], 0),
    ("hooks uninstall", ["hooks", "uninstall"], 0),
    ("index", ["index"], 0),
    ("env", ["env"], 0),
    ("log", ["log"], 0),
    ("log claim", ["log", "{leaf}"], 0),
    ("verify", ["verify", "{leaf}"], 0),
    ("verify unknown", ["verify", "sess-20261129-1000-nobody"], 66),
    ("lint", ["lint"], 0),
    ("breath inhale", ["breath", "inhale", "sprint-b", "--agent", "dev", "x.md"], 0),
    ("breath show", ["breath", "show"], 0),
    ("breath bad sprint", ["breath", "show", "sprint-a/b"], 65),
    ("sync no remote", ["sync"], 69),
    ("unknown command", ["frobnicate"], 64),
]

#: The `--json` document of each row: its keys and value types (`skeleton`); for `env`, whose inner values
#: depend on the machine (pm2 there or not, ports listening), and the hooks' (the sandbox tools found),
#: its keys and the type of each.
#: An error is `{"error", "exit", ...}` with what the refusal names (SPEC 19: one document on stdout).
SHAPES: dict[str, Any] = {
    'open': {'sess_id': 'str',
    'type': 'str',
    'instance': 'str',
    'scope': 'str',
    'story_angle': 'str',
    'status': 'str',
    'opened_at': 'str',
    'ttl': 'str',
    'expires_at': 'str',
    'ttl_left_s': 'int',
    'level': 'str',
    'tier': 'int',
    'tier_name': 'str',
    'flags': [],
    'path': 'str'},
    'open conflict': {'error': 'str',
    'exit': 'int',
    'conflicts': [{'sess_id': 'str',
    'instance': 'str',
    'scope': 'str',
    'status': 'str',
    'overlap': 'str'}],
    'alternatives': []},
    'open bad scope': {'error': 'str', 'exit': 'int'},
    'open bad ttl': {'error': 'str', 'exit': 'int'},
    'open unknown parent': {'error': 'str', 'exit': 'int'},
    'open no scope': {'error': 'str', 'exit': 'int'},
    'close': {'sess_id': 'str', 'status': 'str', 'tier': 'int', 'result': {'status': 'str'}, 'signals': []},
    'close tier 2 red': {'error': 'str', 'exit': 'int'},
    'close waiting': {'error': 'str', 'exit': 'int'},
    'close unknown': {'error': 'str', 'exit': 'int'},
    'renew': {'sess_id': 'str', 'expires_at': 'str'},
    'renew stale': {'error': 'str', 'exit': 'int'},
    'release': {'sess_id': 'str', 'status': 'str'},
    'release open': {'error': 'str', 'exit': 'int'},
    'show': {'sess_id': 'str',
    'type': 'str',
    'instance': 'str',
    'scope': 'str',
    'story_angle': 'str',
    'status': 'str',
    'opened_at': 'str',
    'ttl': 'str',
    'expires_at': 'str',
    'satellite_type': 'str',
    'satellite_level': 'str',
    'parent_satellite': 'str',
    'ttl_left_s': 'int',
    'level': 'str',
    'tier': 'int',
    'tier_name': 'str',
    'flags': [],
    'path': 'str'},
    'show unknown': {'error': 'str', 'exit': 'int'},
    'show bad id': {'error': 'str', 'exit': 'int'},
    'list': {'claims': [{'sess_id': 'str',
    'type': 'str',
    'instance': 'str',
    'scope': 'str',
    'story_angle': 'str',
    'status': 'str',
    'opened_at': 'str',
    'ttl': 'str',
    'expires_at': 'str',
    'stale_since': 'str',
    'stale_from': 'str',
    'stale_reason': 'str',
    'gate_history': [{'ts': 'str', 'event': 'str', 'by': 'str', 'message': 'str'}],
    'ttl_left_s': 'int',
    'level': 'str',
    'tier': 'int',
    'tier_name': 'str',
    'flags': [],
    'path': 'str'}],
    'corrupt': []},
    'list bad status': {'error': 'str', 'exit': 'int'},
    'check-scope free': {'conflicts': []},
    'check-scope conflict': {'conflicts': [{'sess_id': 'str',
    'instance': 'str',
    'scope': 'str',
    'status': 'str',
    'overlap': 'str'}]},
    'watchdog': {'active': 'int', 'stale': 'int', 'marked': []},
    'gate request': {'sess_id': 'str', 'action': 'str', 'status': 'str', 'signal_id': 'str'},
    'gate approve': {'sess_id': 'str', 'action': 'str', 'status': 'str', 'approved_tree': 'str'},
    'gate approve open': {'error': 'str', 'exit': 'int'},
    'gate reject': {'sess_id': 'str', 'action': 'str', 'status': 'str'},
    'gate pause': {'sess_id': 'str', 'action': 'str', 'status': 'str', 'cascade': ['str']},
    'gate resume open': {'error': 'str', 'exit': 'int'},
    'gate abort': {'sess_id': 'str', 'action': 'str', 'status': 'str', 'cascade': []},
    'gate status': {'claim': {'sess_id': 'str',
    'type': 'str',
    'instance': 'str',
    'scope': 'str',
    'story_angle': 'str',
    'status': 'str',
    'opened_at': 'str',
    'ttl': 'str',
    'expires_at': 'str',
    'gate_origin': 'str',
    'gate_message': 'str',
    'gate_history': [{'ts': 'str', 'event': 'str', 'by': 'str', 'message': 'str'}],
    'ttl_left_s': 'int',
    'level': 'str',
    'tier': 'int',
    'tier_name': 'str',
    'flags': [],
    'path': 'str'},
    'subtree': []},
    'gate status unknown': {'error': 'str', 'exit': 'int'},
    'signal send': {'sig_id': 'str'},
    'signal list': {'signals': [{'sig_id': 'str',
    'from': 'str',
    'to': 'str',
    'type': 'str',
    'scope': 'str',
    'payload': 'str',
    'state': 'str',
    'created_at': 'str',
    'path': 'str'}]},
    'signal ack': {'sig_id': 'str', 'state': 'str'},
    'signal ack unknown': {'error': 'str', 'exit': 'int'},
    'signal archive': {'archived': []},
    'preflight go': {'sess_id': 'str', 'file': 'str', 'code': 'int', 'check': 'str'},
    'preflight not open': {'error': 'str',
    'exit': 'int',
    'sess_id': 'str',
    'file': 'str',
    'code': 'int',
    'check': 'str',
    'status': 'str'},
    'preflight scope': {'error': 'str',
    'exit': 'int',
    'sess_id': 'str',
    'file': 'str',
    'code': 'int',
    'check': 'str',
    'scope': 'str'},
    'preflight lock': {'error': 'str',
    'exit': 'int',
    'sess_id': 'str',
    'file': 'str',
    'code': 'int',
    'check': 'str',
    'holder': 'str',
    'expires_at': 'str'},
    'preflight fail': {'sess_id': 'str',
    'fails': 'int',
    'max': 'int',
    'tripped': 'bool',
    'last_fail_at': 'str',
    'signal': 'NoneType'},
    'preflight reset': {'sess_id': 'str',
    'fails': 'int',
    'max': 'int',
    'tripped': 'bool',
    'last_fail_at': 'NoneType',
    'signal': 'NoneType'},
    'preflight status': {'sess_id': 'str',
    'fails': 'int',
    'max': 'int',
    'tripped': 'bool',
    'last_fail_at': 'NoneType',
    'signal': 'NoneType'},
    'lock acquire': {'file': 'str',
    'holder': 'str',
    'generation': 'int',
    'claimed_at': 'str',
    'expires_at': 'str',
    'ttl_min': 'int',
    'path': 'str',
    'action': 'str',
    'takeover': 'bool',
    'previous_holder': 'NoneType',
    'previous_expires_at': 'NoneType',
    'replaced_legacy': []},
    'lock acquire held': {'error': 'str',
    'exit': 'int',
    'file': 'str',
    'holder': 'str',
    'expires_at': 'str',
    'generation': 'int'},
    'lock acquire bad ttl': {'error': 'str', 'exit': 'int'},
    'lock release': {'file': 'str', 'released': 'bool', 'removed': ['str']},
    'lock release not holder': {'error': 'str', 'exit': 'int', 'file': 'str', 'holder': 'str', 'expires_at': 'str'},
    'lock check held': {'file': 'str',
    'locked': 'bool',
    'lock': {'file': 'str',
    'holder': 'str',
    'generation': 'int',
    'claimed_at': 'str',
    'expires_at': 'str',
    'ttl_min': 'int',
    'expired': 'bool',
    'legacy': 'bool',
    'path': 'str',
    'holder_ended': 'NoneType'}},
    'lock check free': {'file': 'str', 'locked': 'bool', 'lock': 'NoneType'},
    'lock list': {'locks': [{'file': 'str',
    'holder': 'str',
    'generation': 'int',
    'claimed_at': 'str',
    'expires_at': 'str',
    'ttl_min': 'int',
    'expired': 'bool',
    'legacy': 'bool',
    'path': 'str',
    'holder_ended': 'NoneType'}],
    'corrupt': []},
    'lock cleanup': {'removed': []},
    'init': {'brain': 'str'},
    'init a file': {'error': 'str', 'exit': 'int'},
    'demo': {'brain': 'str'},
    'demo inside a brain': {'error': 'str', 'exit': 'int'},
    'breath reference': {'sprint': 'str', 'added': ['str']},
    'breath reference unknown': {'error': 'str', 'exit': 'int'},
    'breath expire': {'sprint': 'str', 'released': ['str'], 'kept': {}, 'warnings': []},
    'hooks status': {'path': 'str',
    'action': 'str',
    'missing': 'list',
    'outdated': 'list',
    'installed': 'bool',
    'command': 'str',
    'resolves': 'bool',
    'notes': 'list',
    'sandbox': 'dict'},
    'hooks install': {'path': 'str',
    'action': 'str',
    'missing': 'list',
    'outdated': 'list',
    'installed': 'bool',
    'command': 'str',
    'resolves': 'bool',
    'notes': 'list',
    'sandbox': 'dict'},
    'hooks uninstall': {'path': 'str',
    'action': 'str',
    'missing': 'list',
    'outdated': 'list',
    'installed': 'bool',
    'command': 'str',
    'resolves': 'NoneType',
    'notes': 'list'},
    'index': {'paths': [], 'imported_signals': [], 'commit': 'NoneType'},
    'env': {'hostname': 'str', 'instance': 'str', 'git': 'dict', 'pm2': 'dict', 'ports': 'dict', 'system': 'dict',
            'sync': 'dict'},
    'log': {'entries': [{'commit': 'str', 'date': 'str', 'author': 'str', 'message': 'str', 'files': ['str']}]},
    'log claim': {'entries': [{'commit': 'str', 'date': 'str', 'author': 'str', 'message': 'str', 'files': ['str']}]},
    'verify': {'sess_id': 'str',
    'scope': 'str',
    'commits': ['str'],
    'changed': [],
    'uncommitted': [],
    'outside': [],
    'drift': 'bool'},
    'verify unknown': {'error': 'str', 'exit': 'int'},
    'lint': {'findings': []},
    'breath inhale': {'sprint': 'str', 'agent': 'str', 'files': ['str'], 'alerts': []},
    'breath show': {'sprints': [{'sprint': 'str',
    'context_load': 'NoneType',
    'stale_ratio': 'float',
    'breath_depth': 'int',
    'exhale_rate': 'float',
    'alerts': [{'metric': 'str',
    'value': 'float',
    'threshold': 'float',
    'message': 'str'}],
    'open': 'bool',
    'opened_at': 'str',
    'closed_at': 'NoneType',
    'loaded': 'int',
    'referenced': 'int',
    'released': 'int',
    'stale': 'int',
    'kept': 'int'}]},
    'breath bad sprint': {'error': 'str', 'exit': 'int'},
    'sync no remote': {'error': 'str', 'exit': 'int'},
    'unknown command': {'error': 'str', 'exit': 'int'},
}


#: The writes on one claim: their document is the claim as it now is (SPEC 19's claim object) with the write's own
#: keys over it; SHAPES gives those keys, and the claim's keys are checked by SPEC_KEYS.
CLAIM_RESULTS = {"close", "renew", "release", "gate request", "gate approve", "gate reject", "gate pause",
                 "gate abort"}

#: The rows whose inner values depend on the machine: checked one level deep.
MACHINE_DEPENDENT = {"env", "hooks status", "hooks install", "hooks uninstall"}

#: What SPEC 19 names, to the letter: {row: {where ("." the document; else its key holding an object or a
#: list of them): the keys each must have}}.
CLAIM_KEYS = ("sess_id", "status", "scope", "level", "tier")
CONFLICT_KEYS = ("sess_id", "scope", "status", "overlap")
SPEC_KEYS: dict[str, dict[str, tuple[str, ...]]] = {
    "open": {".": CLAIM_KEYS},
    "show": {".": CLAIM_KEYS},
    "list": {".": ("claims", "corrupt"), "claims": CLAIM_KEYS},
    "open conflict": {"conflicts": CONFLICT_KEYS},
    "check-scope conflict": {"conflicts": CONFLICT_KEYS},
    "check-scope free": {".": ("conflicts",)},
    "watchdog": {".": ("active", "stale", "marked")},
    "signal list": {".": ("signals",)},
    "breath show": {"sprints": ("sprint", "context_load", "stale_ratio", "breath_depth", "exhale_rate", "alerts")},
    "env": {".": ("hostname", "instance", "git", "pm2", "ports", "system")},
    **{name: {".": CLAIM_KEYS} for name in CLAIM_RESULTS},
}


def argv(args: list[str], ids: dict[str, str], root: Path) -> list[str]:
    """The command line with `{name}` replaced by the ID of `name`, `{fresh}` by the brain's folder itself."""
    return [arg.format(fresh=root, **ids) for arg in args]


@pytest.mark.parametrize(("name", "args", "code"), CASES, ids=[c[0] for c in CASES])
def test_exit_code_and_json_shape(world: tuple[Path, dict[str, str]], name: str, args: list[str], code: int) -> None:
    root, ids = world
    run = run_bsi("--json", *argv(args, ids, root), brain=root, now=NOW)
    assert run.code == code, (run.code, run.out, run.err)
    doc = json.loads(run.out)
    if name in MACHINE_DEPENDENT:
        assert {key: type(value).__name__ for key, value in doc.items()} == SHAPES[name]
    elif name in CLAIM_RESULTS:
        assert skeleton({key: doc[key] for key in SHAPES[name] if key in doc}) == SHAPES[name]
    else:
        assert skeleton(doc) == SHAPES[name]
    assert doc.get("exit", code) == code  # an error document says the exit code it gives
    for key, fields in SPEC_KEYS.get(name, {}).items():
        found = doc if key == "." else doc[key]
        for item in found if isinstance(found, list) else [found]:
            assert set(fields) <= set(item), (key, sorted(fields), sorted(item))


# -- what the text mode promises (SPEC 19, 13) ---------------------------------------------------------------
def test_open_and_signal_send_print_the_new_id_alone(world: tuple[Path, dict[str, str]]) -> None:
    root, ids = world
    opened = run_bsi("claim", "open", "--scope", "n/", "--slug", "new", brain=root)
    assert (opened.code, opened.out) == (0, "sess-20261129-1000-new\n"), opened.err
    sent = run_bsi("signal", "send", "--to", ids["leaf"], "--type", "INFO", "--from", ids["pilot"], "hi", brain=root)
    assert sent.code == 0 and re.fullmatch(r"sig-[0-9a-z-]+\n", sent.out), sent.out


def test_watchdog_prints_its_counts(world: tuple[Path, dict[str, str]]) -> None:
    root, _ = world
    run = run_bsi("watchdog", brain=root)
    assert run.code == 0 and run.out == "4 claims actifs, 1 stale détectés\n", run.out


def test_an_unknown_command_prints_the_usage(world: tuple[Path, dict[str, str]]) -> None:
    root, _ = world
    run = run_bsi("frobnicate", brain=root)
    assert run.code == 64 and run.out == "" and "usage" in run.err.lower(), run.err


@pytest.mark.parametrize("args", [["claim", "open", "--scope", "../out"], ["claim", "show", "not-an-id"],
                                  ["claim", "list", "--status", "bogus"], ["claim", "open", "--scope", "n/",
                                                                          "--ttl", "9h"]])
def test_bad_data_is_one_line_on_stderr_and_nothing_written(world: tuple[Path, dict[str, str]],
                                                            args: list[str]) -> None:
    root, _ = world
    before = tree_bytes(root)
    run = run_bsi(*args, brain=root)
    assert run.code == 65 and run.out == "" and len(run.err.strip().splitlines()) == 1, run.err
    assert tree_bytes(root) == before


def test_json_output_stays_json_when_a_claim_file_holds_a_number_json_has_not(brain: Path) -> None:
    """YAML reads `.inf` and `.nan` (a claim file edited by hand, or pulled); JSON has no such numbers, and
    `Infinity` would break every strict reader of `--json` and of an MCP tool's text: they show as null."""
    from brain_tui.mcp.tools import Session, as_text, claim_list
    from tests.bsi import clean_env

    sess = ok(run_bsi("claim", "open", "--scope", "notes/", "--story", "x", brain=brain)).strip()
    path = brain / "claims" / f"{sess}.yml"
    path.write_text(path.read_text(encoding="utf-8") + "weight: .inf\nextra: [.nan, -.inf]\n", encoding="utf-8")

    def strict(text: str) -> Any:
        def no_constant(word: str) -> Any:
            raise ValueError(word)
        return json.loads(text, parse_constant=no_constant)

    for args in (("claim", "list"), ("claim", "show", sess)):
        doc = strict(ok(run_bsi("--json", *args, brain=brain)))
        claim = doc["claims"][0] if "claims" in doc else doc
        assert claim["weight"] is None and claim["extra"] == [None, None], claim
    strict(as_text(claim_list(Session(brain, now=NOW, environ=clean_env(), client="c"))))
