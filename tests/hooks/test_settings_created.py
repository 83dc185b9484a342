"""`bsi hooks uninstall` after an install that created the settings file: once bsi's entries are out and nothing
else is in it, the file goes (and the folder install made for it, when empty), rather than a `{}` left behind.
A file the user made, even an empty `{}`, or one they added to since, stays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import clean_env, ok, run_bsi

AGENT_FILES = {"claude": Path(".claude/settings.json"), "gemini": Path(".gemini/settings.json")}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return clean_env(HOME=str(home), CODEX_HOME=str(home / ".codex"))


def _target(brain: Path, env: dict[str, str], agent: str) -> Path:
    return Path(env["CODEX_HOME"]) / "hooks.json" if agent == "codex" else brain / AGENT_FILES[agent]


def _hooks(brain: Path, env: dict[str, str], action: str, agent: str, *flags: str) -> str:
    return ok(run_bsi("hooks", action, "--agent", agent, *flags, brain=brain, env=env))


@pytest.mark.parametrize("agent", ["claude", "gemini", "codex"])
def test_a_file_install_created_goes_with_its_entries(brain: Path, env: dict[str, str], agent: str) -> None:
    """Before: uninstall left `{}` in a file (and a folder) the user never had."""
    target = _target(brain, env, agent)
    _hooks(brain, env, "install", agent)
    assert target.is_file()
    said = _hooks(brain, env, "uninstall", agent)
    assert "removed" in said and "deleted" in said, said
    assert not target.exists() and not target.parent.exists()
    assert "absent" in _hooks(brain, env, "uninstall", agent)


def test_the_local_settings_file_too(brain: Path, env: dict[str, str]) -> None:
    _hooks(brain, env, "install", "claude", "--local")
    _hooks(brain, env, "uninstall", "claude", "--local")
    assert not (brain / ".claude").exists()


def test_a_folder_that_holds_other_files_stays(brain: Path, env: dict[str, str]) -> None:
    _hooks(brain, env, "install", "claude")
    (brain / ".claude" / "commands.md").write_text("mine\n")
    _hooks(brain, env, "uninstall", "claude")
    assert not (brain / ".claude" / "settings.json").exists()
    assert (brain / ".claude" / "commands.md").read_text() == "mine\n"


def test_codex_keeps_its_home_when_it_was_there(brain: Path, env: dict[str, str]) -> None:
    home = Path(env["CODEX_HOME"])
    home.mkdir()
    _hooks(brain, env, "install", "codex")
    _hooks(brain, env, "uninstall", "codex")
    assert not (home / "hooks.json").exists() and home.is_dir()


@pytest.mark.parametrize("agent", ["claude", "gemini", "codex"])
def test_a_file_the_user_made_stays_even_empty(brain: Path, env: dict[str, str], agent: str) -> None:
    target = _target(brain, env, agent)
    target.parent.mkdir(parents=True)
    target.write_text("{}\n")
    _hooks(brain, env, "install", agent)
    said = _hooks(brain, env, "uninstall", agent)
    assert "deleted" not in said
    assert json.loads(target.read_text()) == {}


@pytest.mark.parametrize("agent", ["claude", "gemini", "codex"])
def test_what_the_user_added_since_keeps_the_file(brain: Path, env: dict[str, str], agent: str) -> None:
    target = _target(brain, env, agent)
    _hooks(brain, env, "install", agent)
    data = json.loads(target.read_text())
    target.write_text(json.dumps({**data, "theme": "mine"}))
    _hooks(brain, env, "uninstall", agent)
    assert json.loads(target.read_text()) == {"theme": "mine"}
    # and that file is the user's from now on: emptied by hand and filled by a new install, it stays
    target.write_text("{}\n")
    _hooks(brain, env, "install", agent)
    _hooks(brain, env, "uninstall", agent)
    assert json.loads(target.read_text()) == {}
