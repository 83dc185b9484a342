"""Theme files (YAML) turned into Textual `Theme`s, and the small settings file that remembers the choice.

Themes are looked up, in order, in the wheel (`brain_tui/_themes`, force-included from the repository's `themes/`), in
the repository's `themes/` folder (editable installs), and in ``$XDG_CONFIG_HOME/brain-tui/themes`` (the user's own). A
later file with the same name replaces an earlier one; a bad file is skipped and reported, never fatal.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

from brain_tui.core.record import field, record

#: The themes `t` cycles through, in order.
THEME_CYCLE = ("brain-dark", "brain-light", "high-contrast", "ansi-dark", "ansi-light")
DEFAULT_THEME = "brain-dark"
#: The theme used when NO_COLOR is set and no theme was asked for.
NO_COLOR_THEME = "ansi-dark"
_COLOR_KEYS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
               "surface", "panel", "boost")
MAX_THEME_FILE = 64 * 1024


class ThemeFileError(ValueError):
    """A theme file that cannot be used (the message says why)."""


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/brain-tui`` (default ``~/.config/brain-tui``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "brain-tui"


def theme_dirs() -> list[Path]:
    """Folders searched for `*.yaml` theme files, lowest priority first."""
    package = Path(__file__).resolve().parent.parent  # brain_tui/
    return [package / "_themes", package.parent / "themes", config_dir() / "themes"]


def theme_from_mapping(data: Any, source: str = "theme") -> Theme:
    """A Textual Theme from a parsed theme file (`source` names it in errors); `ThemeFileError` when the mapping is
    not a usable theme."""
    if not isinstance(data, Mapping):
        raise ThemeFileError(f"{source}: not a mapping")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeFileError(f"{source}: `name` is required")
    if not isinstance(data.get("primary"), str):
        raise ThemeFileError(f"{source}: `primary` colour is required")
    kwargs: dict[str, Any] = {"name": name.strip()}
    for key in _COLOR_KEYS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ThemeFileError(f"{source}: `{key}` must be a colour string")
        try:
            Color.parse(value)
        except ColorParseError:
            raise ThemeFileError(f"{source}: `{key}` is not a colour: {value!r}") from None
        kwargs[key] = value
    if "dark" in data:
        if not isinstance(data["dark"], bool):
            raise ThemeFileError(f"{source}: `dark` must be true or false")
        kwargs["dark"] = data["dark"]
    for key in ("luminosity_spread", "text_alpha"):
        if key in data:
            if not isinstance(data[key], (int, float)) or isinstance(data[key], bool):
                raise ThemeFileError(f"{source}: `{key}` must be a number")
            kwargs[key] = float(data[key])
    variables = data.get("variables") or {}
    if not isinstance(variables, Mapping):
        raise ThemeFileError(f"{source}: `variables` must be a mapping")
    kwargs["variables"] = {str(k): str(v) for k, v in variables.items()}
    return Theme(**kwargs)


#: PyYAML's safe loader, its C version when built (ten times faster: three theme files are read before the
#: first frame).
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_theme_file(path: Path) -> Theme:
    """Read one YAML theme file (`ThemeFileError`: unreadable, too big, not YAML or not a theme)."""
    try:
        if path.stat().st_size > MAX_THEME_FILE:
            raise ThemeFileError(f"{path.name}: larger than 64 KiB")
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ThemeFileError(f"{path.name}: {exc.__class__.__name__}") from None
    return theme_from_mapping(data, path.name)


@record(frozen=False)
class LoadedThemes:
    """The themes found, and the files that could not be used."""

    themes: dict[str, Theme] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def load_themes(folders: Iterable[Path] | None = None) -> LoadedThemes:
    """Load every theme file of `folders` (default `theme_dirs()`; later folders win): themes by name, and one
    message per skipped file."""
    found = LoadedThemes()
    for folder in folders if folders is not None else theme_dirs():
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml")):
            try:
                theme = load_theme_file(path)
            except ThemeFileError as exc:
                found.problems.append(str(exc))
                continue
            found.themes[theme.name] = theme
    return found


# -- settings ---------------------------------------------------------------------------------------
def settings_path() -> Path:
    """The cockpit's settings file (theme choice, bell)."""
    return config_dir() / "settings.json"


def load_settings(path: Path | None = None) -> dict[str, Any]:
    """The remembered settings; {} when absent or unreadable."""
    target = path or settings_path()
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_settings(settings: Mapping[str, Any], path: Path | None = None) -> bool:
    """Write the settings atomically (a user preference file, never a brain file); False when the folder is not
    writable (the cockpit carries on)."""
    target = path or settings_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(dict(settings), handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.replace(tmp, target)
    except OSError:
        return False
    return True
