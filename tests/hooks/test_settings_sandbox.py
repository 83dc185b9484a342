"""`bsi hooks install` writes Claude Code's OS sandbox as the fence of the protocol files (SPEC 21.3)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from brain_tui.core.agent_settings import sandbox
from tests.bsi import clean_env, ok, run_bsi
from tests.hooks.test_settings import CLAUDE_MATCHER

FENCE = {
    "enabled": True,
    "failIfUnavailable": True,
    "allowUnsandboxedCommands": False,
    "autoAllowBashIfSandboxed": True,
    "filesystem": {"denyWrite": ["./claims", "./signals", "./locks", "./breath", "./.brain", "./BRAIN-INDEX.md",
                                  "./.mcp.json", "./.gemini/settings.json", "./.gemini/.env", "./.env",
                                  "./brain-compose.yml"]},
}


def settings_of(brain: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((brain / ".claude" / "settings.json").read_text())
    return data


def write(brain: Path, data: object) -> Path:
    target = brain / ".claude" / "settings.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=2) + "\n")
    return target


def test_install_writes_the_fence_by_default_and_a_second_run_is_unchanged(brain: Path) -> None:
    ok(run_bsi("hooks", "install", brain=brain))
    data = settings_of(brain)
    assert data["sandbox"] == FENCE
    pre = data["hooks"]["PreToolUse"]  # type: ignore[index]
    assert pre[-1]["matcher"] == CLAUDE_MATCHER
    assert "Bash(*bsi *gate approve*)" in data["permissions"]["deny"]  # type: ignore[index]
    first = (brain / ".claude" / "settings.json").read_bytes()
    assert "unchanged" in ok(run_bsi("hooks", "install", brain=brain))
    assert (brain / ".claude" / "settings.json").read_bytes() == first
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=brain)))
    assert status["installed"] and status["missing"] == []
    assert status["sandbox"]["platform"] in ("linux", "macos") or status["sandbox"]["ready"] is False


def test_no_sandbox_skips_the_fence_and_takes_out_an_earlier_one(brain: Path) -> None:
    ok(run_bsi("hooks", "install", "--no-sandbox", brain=brain))
    assert "sandbox" not in settings_of(brain)
    assert json.loads(ok(run_bsi("hooks", "status", "--no-sandbox", "--json", brain=brain)))["installed"]
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=brain)))
    assert "sandbox" in status["missing"] and not status["installed"]
    ok(run_bsi("hooks", "install", brain=brain))
    assert settings_of(brain)["sandbox"] == FENCE
    ok(run_bsi("hooks", "install", "--no-sandbox", brain=brain))
    assert "sandbox" not in settings_of(brain)


def test_a_users_sandbox_block_is_merged_into_and_given_back_exactly(brain: Path) -> None:
    own = {"model": "opus", "sandbox": {
        "enabled": True,
        "network": {"allowedDomains": ["pypi.org"]},
        "excludedCommands": ["docker"],
        "filesystem": {"allowWrite": ["~/.kube"], "denyWrite": ["./secrets", "./claims"]},
    }}
    target = write(brain, own)
    ok(run_bsi("hooks", "install", brain=brain))
    block = settings_of(brain)["sandbox"]
    assert isinstance(block, dict)
    assert block["network"] == {"allowedDomains": ["pypi.org"]} and block["excludedCommands"] == ["docker"]
    assert block["filesystem"]["allowWrite"] == ["~/.kube"]
    assert block["filesystem"]["denyWrite"][:2] == ["./secrets", "./claims"]
    assert set(FENCE["filesystem"]["denyWrite"]) <= set(block["filesystem"]["denyWrite"])  # type: ignore[index]
    assert block["filesystem"]["denyWrite"].count("./claims") == 1
    assert all(block[key] == value for key, value in sandbox.FENCE_KEYS.items())
    assert "unchanged" in ok(run_bsi("hooks", "install", brain=brain))
    ok(run_bsi("hooks", "uninstall", brain=brain))
    assert json.loads(target.read_text()) == own  # their `enabled` and their ./claims entry stay theirs


def test_without_the_record_of_this_clone_uninstall_takes_out_the_fences_values(brain: Path) -> None:
    own = {"sandbox": {"network": {"allowedDomains": ["pypi.org"]}, "enabled": True}}
    target = write(brain, own)
    ok(run_bsi("hooks", "install", brain=brain))
    (brain / sandbox.RECORD).unlink()  # installed on another clone: what was added is not known here
    ok(run_bsi("hooks", "uninstall", brain=brain))
    assert json.loads(target.read_text()) == {"sandbox": {"network": {"allowedDomains": ["pypi.org"]}}}


def test_a_users_weaker_switch_is_kept_and_reported(brain: Path) -> None:
    write(brain, {"sandbox": {"allowUnsandboxedCommands": True}})
    ok(run_bsi("hooks", "install", brain=brain))
    block = settings_of(brain)["sandbox"]
    assert isinstance(block, dict) and block["allowUnsandboxedCommands"] is True and block["enabled"] is True
    status = json.loads(ok(run_bsi("hooks", "status", "--json", brain=brain)))
    assert not status["installed"]
    assert any(item.startswith("sandbox.allowUnsandboxedCommands: true (yours, kept") for item in status["outdated"])
    ok(run_bsi("hooks", "uninstall", brain=brain))
    assert settings_of(brain) == {"sandbox": {"allowUnsandboxedCommands": True}}


def test_uninstall_removes_exactly_the_fence(brain: Path) -> None:
    target = write(brain, {"env": {"A": "1"}})
    ok(run_bsi("hooks", "install", brain=brain))
    assert "removed" in ok(run_bsi("hooks", "uninstall", brain=brain))
    assert json.loads(target.read_text()) == {"env": {"A": "1"}}


def test_uninstall_keeps_denywrite_entries_that_are_not_strings(brain: Path) -> None:
    odd: list[object] = [1, None, {"a": 1}, ["./x"]]  # a hand edit Claude Code ignores: kept, never a crash
    target = write(brain, {"sandbox": {"filesystem": {"denyWrite": list(odd)}}})
    ok(run_bsi("hooks", "install", brain=brain))
    run = run_bsi("hooks", "uninstall", brain=brain)
    assert run.code == 0, run.err
    assert json.loads(target.read_text()) == {"sandbox": {"filesystem": {"denyWrite": odd}}}


@pytest.mark.parametrize("block", ['"on"', '{"filesystem": []}', '{"filesystem": {"denyWrite": "./claims"}}'])
def test_a_sandbox_block_claude_code_cannot_read_is_refused_untouched(brain: Path, block: str) -> None:
    target = brain / ".claude" / "settings.json"
    target.parent.mkdir()
    text = '{"sandbox": ' + block + "}"
    target.write_text(text)
    run = run_bsi("hooks", "install", brain=brain)
    assert run.code == 65 and "nothing was changed" in run.err and "Traceback" not in run.err
    assert target.read_text() == text


def test_status_says_what_to_install_when_bwrap_and_socat_are_missing(brain: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # git only: no bwrap, no socat
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    run = run_bsi("hooks", "status", "--json", brain=brain, env=clean_env(PATH=str(bin_dir)))
    doc = json.loads(ok(run))
    if sys.platform.startswith("linux"):
        assert doc["sandbox"] == {"platform": "linux", "ready": False, "missing": ["bwrap", "socat"],
                                  "install": "apt install bubblewrap socat"}
        assert any("apt install bubblewrap socat" in note for note in doc["notes"])
        text = ok(run_bsi("hooks", "status", brain=brain, env=clean_env(PATH=str(bin_dir))))
        assert "run `apt install bubblewrap socat`" in text


def test_dependencies_by_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None if name == "socat" else f"/usr/bin/{name}")
    linux = sandbox.dependencies("Linux")
    assert linux == {"platform": "linux", "ready": False, "missing": ["socat"], "install": "apt install socat"}
    assert "apt install socat" in sandbox.dependency_line(linux)
    mac = sandbox.dependencies("Darwin")
    assert mac["ready"] and "Seatbelt" in sandbox.dependency_line(mac)
    assert not sandbox.dependencies("Windows")["ready"]
