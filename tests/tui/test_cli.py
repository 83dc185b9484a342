"""`brain-tui` command line: errors before the screen opens, NO_COLOR, themes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from brain_tui.tui.__main__ import build_parser, main

from .conftest import screen_text, settle


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "brain_tui.tui", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_no_brain_exits_66_naming_the_way_out(tmp_path: Path) -> None:
    proc = run_cli("--brain", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert proc.returncode == 66
    assert "bsi init" in proc.stderr and "--demo" in proc.stderr
    assert proc.stderr.count("brain-tui --demo") == 1 and proc.stderr.count("\n") == 1  # one line, said once


def test_unknown_theme_exits_64(demo_root: Path, tmp_path: Path) -> None:
    assert main(["--brain", str(demo_root), "--theme", "no-such-theme"]) == 64


@pytest.mark.parametrize("args", [("--bogus",), ("--port", "eighty", "--serve"), ("stray",)])
def test_an_unknown_or_malformed_flag_exits_64_with_usage(tmp_path: Path, args: tuple[str, ...]) -> None:
    """SPEC 13: an unknown command or flag is exit 64 with usage (argparse's own 2 is not a SPEC code)."""
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 64, proc.stderr
    assert proc.stderr.startswith("usage: brain-tui") and proc.stdout == ""


def test_flags() -> None:
    args = build_parser().parse_args(["--demo", "--gates", "--readonly", "--theme", "high-contrast", "--no-bell"])
    assert (args.demo, args.gates, args.readonly, args.theme, args.bell) == (True, True, True, "high-contrast", False)
    assert build_parser().parse_args([]).bell is None  # the remembered setting decides


@pytest.mark.anyio
async def test_no_color_keeps_meaning_without_colour(make_app, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(theme="ansi-dark")
    assert app.no_color  # Textual drops every colour
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        # status is carried by icons and words, not by colour alone
        assert "⚑" in text and "!" in text and "Stale — human control required" in text


@pytest.mark.anyio
async def test_high_contrast_theme_loads(make_app) -> None:  # noqa: ANN001
    app = make_app(theme="high-contrast")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.theme == "high-contrast"
        assert app.get_css_variables()["background"].upper() == "#000000"


@pytest.mark.parametrize("instance", ["", "a b", "nobody", "x@y@z"])
def test_an_instance_not_brain_at_machine_is_65_before_the_screen_opens(demo_root: Path, instance: str) -> None:
    """The cockpit's --instance is refused as `bsi claim open --instance` refuses it (SPEC 4), not kept to fail
    at the first open."""
    proc = run_cli("--brain", str(demo_root), "--instance", instance, cwd=demo_root)
    assert proc.returncode == 65 and proc.stderr.startswith("brain-tui: invalid instance"), proc.stderr
