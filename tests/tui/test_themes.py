"""Theme files: loaded at start, a bad file skipped, the choice remembered."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.tui.themes import (
    ThemeFileError,
    load_settings,
    load_themes,
    save_settings,
    settings_path,
    theme_dirs,
    theme_from_mapping,
)

REPO_THEMES = Path(__file__).resolve().parents[2] / "themes"


def test_repo_themes_load() -> None:
    loaded = load_themes([REPO_THEMES])
    assert {"brain-dark", "brain-light", "high-contrast"} <= set(loaded.themes)
    assert loaded.problems == []
    assert loaded.themes["brain-light"].dark is False


def test_editable_install_finds_the_repo_folder() -> None:
    assert REPO_THEMES in theme_dirs()
    assert "brain-dark" in load_themes().themes


def test_bad_theme_files_are_skipped_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").write_text("name: [unclosed\n")
    (tmp_path / "nocolor.yaml").write_text("name: x\nprimary: not-a-colour\n")
    (tmp_path / "mine.yaml").write_text("name: mine\nprimary: '#123456'\ndark: true\n")
    loaded = load_themes([tmp_path])
    assert list(loaded.themes) == ["mine"]
    assert len(loaded.problems) == 2 and any("not a colour" in p for p in loaded.problems)


def test_theme_mapping_validation() -> None:
    with pytest.raises(ThemeFileError):
        theme_from_mapping({"primary": "#fff"})
    with pytest.raises(ThemeFileError):
        theme_from_mapping({"name": "x", "primary": "#fff", "dark": "yes"})


def test_settings_round_trip_under_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert settings_path() == tmp_path / "brain-tui" / "settings.json"
    assert load_settings() == {}
    assert save_settings({"theme": "high-contrast", "bell": False})
    assert load_settings() == {"theme": "high-contrast", "bell": False}
