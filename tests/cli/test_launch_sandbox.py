"""`bsi launch` gives a Claude Code satellite its claim's sandbox: `claude --settings .brain/launch/<id>.json`.

The fence's rule is `core.fence.claim_sandbox`: Claude Code always lets the shell write its working
folder and a denyWrite entry wins over allowWrite, so what lies beside the claim's scopes is denied.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.sessions.fence import FENCE_KEYS, claim_sandbox
from tests.bsi import run_bsi
from tests.cli.test_launch import opened, recorded, recorder, write_config
from tests.tmux import no_tmux_env

PROTOCOL = ["claims", "signals", "locks", "breath", ".brain", "BRAIN-INDEX.md", ".mcp.json", ".gemini/settings.json",
            ".gemini/.env", ".env", "brain-compose.yml"]


def tree(root: Path) -> Path:
    for folder in ("a/sub", "b", ".git", ".claude", "claims"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for name in ("a/x.py", "a/y.py", "a/sub/z.py", "top.md", "other.md"):
        (root / name).write_text("x\n")
    return root


def absolute(root: Path, *paths: str) -> list[str]:
    return ["/" + str(root / path) for path in paths]


def test_only_the_scopes_are_writable_beside_them_everything_is_denied(tmp_path: Path) -> None:
    root = tree(tmp_path / "brain")
    settings = claim_sandbox(root, parse_scope(["a/sub/", "top.md#Sprint 3"], root))
    block = settings["sandbox"]
    assert {key: block[key] for key in FENCE_KEYS} == FENCE_KEYS
    assert block["filesystem"]["allowWrite"] == absolute(root, "a/sub", "top.md")
    deny = block["filesystem"]["denyWrite"]
    assert deny[:len(PROTOCOL)] == absolute(root, *PROTOCOL)
    assert sorted(deny[len(PROTOCOL):]) == sorted(absolute(root, "a/x.py", "a/y.py", "b", "other.md"))
    for kept in ("a", "a/sub", "a/sub/z.py", "top.md", ".git", ".claude"):
        assert "/" + str(root / kept) not in deny, kept


def test_a_global_scope_denies_the_protocol_files_only(tmp_path: Path) -> None:
    root = tree(tmp_path / "brain")
    filesystem = claim_sandbox(root, parse_scope(["*"], root))["sandbox"]["filesystem"]
    assert filesystem == {"denyWrite": absolute(root, *PROTOCOL)}


def test_a_claude_command_gets_settings_inserted_after_the_program(brain: Path) -> None:
    write_config(brain, ["claude", "{prompt}"], tmux=False)
    (brain / "src").mkdir()
    (brain / "src" / "app.py").write_text("x\n")
    (brain / "docs").mkdir()
    sess = opened(brain, "--scope", "src/app.py")
    plan = run_bsi("launch", sess, "--dry-run", "--json", brain=brain).json()
    path = str(brain / ".brain" / "launch" / f"{sess}.json")
    assert plan["argv"][:3] == ["claude", "--settings", path] and len(plan["argv"]) == 4
    assert plan["settings_path"] == path
    filesystem = plan["settings"]["sandbox"]["filesystem"]
    assert filesystem["allowWrite"] == absolute(brain, "src/app.py")
    assert "/" + str(brain / "docs") in filesystem["denyWrite"]
    assert not Path(path).exists()  # a dry run writes nothing


def test_a_command_with_its_own_settings_is_left_as_written(brain: Path) -> None:
    write_config(brain, ["/usr/local/bin/claude", "--settings", "mine.json", "{prompt}"], tmux=False)
    sess = opened(brain, "--scope", "wiki/")
    plan = run_bsi("launch", sess, "--dry-run", "--json", brain=brain).json()
    assert plan["argv"][:3] == ["/usr/local/bin/claude", "--settings", "mine.json"] and len(plan["argv"]) == 4
    assert plan["settings_path"] is None and plan["settings"] is None
    write_config(brain, ["codex", "{prompt}"], tmux=False)
    plan = run_bsi("launch", sess, "--dry-run", "--json", brain=brain).json()
    assert len(plan["argv"]) == 2 and plan["settings"] is None


def test_the_settings_placeholder_names_the_file_written_before_the_agent_starts(brain: Path,
                                                                                  tmp_path: Path) -> None:
    out = tmp_path / "argv.json"
    write_config(brain, [sys.executable, str(recorder(tmp_path)), str(out), "--settings={settings}"], tmux=False)
    sess = opened(brain, "--scope", "wiki/")
    # a process: without tmux, `bsi launch` becomes the launch root of the agent (exec)
    run = run_bsi("launch", sess, brain=brain, env=no_tmux_env(), process=True)
    assert run.code == 0, run.err
    path = brain / ".brain" / "launch" / f"{sess}.json"
    assert recorded(out)["argv"] == [f"--settings={path}"]
    written = json.loads(path.read_text())
    assert written["sandbox"]["filesystem"]["allowWrite"] == absolute(brain, "wiki")
    assert written["sandbox"]["enabled"] is True
