"""An unexpected error inside `bsi` reaches the user as one line and exit 70, never a traceback."""

from __future__ import annotations

import importlib
import json
import subprocess
from pathlib import Path

import pytest

from tests.bsi import NOW, bsi_command, clean_env, git

cli_main = importlib.import_module("brain_tui.cli.main")


def test_a_bug_is_one_line_and_exit_70(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(**_: object) -> None:
        raise TypeError("'NoneType' object is not subscriptable")

    monkeypatch.setattr(cli_main, "build_parser", broken)
    monkeypatch.delenv("BSI_DEBUG", raising=False)
    assert cli_main.main(["claim", "list"]) == cli_main.INTERNAL_ERROR == 70
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1
    assert err.startswith("bsi: internal error (TypeError: 'NoneType' object is not subscriptable)")


def test_bsi_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(**_: object) -> None:
        raise TypeError("boom")

    monkeypatch.setattr(cli_main, "build_parser", broken)
    monkeypatch.setenv("BSI_DEBUG", "1")
    with pytest.raises(TypeError, match="boom"):
        cli_main.main(["claim", "list"])


def test_a_usage_error_under_json_is_one_json_document(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["--json", "claim", "open", "--no-such-flag"]) == 64
    out = capsys.readouterr().out
    doc = json.loads(out)
    assert doc["exit"] == 64 and doc["error"]


FULL = Path("/dev/full")


def _to_full_stdout(brain: Path, *args: str) -> tuple[int, str]:
    """Run `bsi ARGS…` as a process whose stdout is a device that is always full: (exit code, stderr)."""
    with FULL.open("w", encoding="utf-8") as stdout:
        proc = subprocess.run(bsi_command(*args, brain=brain, now=NOW), stdout=stdout, stderr=subprocess.PIPE,
                              env=clean_env(), cwd=brain, timeout=60, check=False)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize("json_flag", [(), ("--json",)])
def test_a_full_stdout_is_one_line_and_exit_74_not_a_traceback(brain: Path, json_flag: tuple[str, ...]) -> None:
    """SPEC 13: no traceback, ever. A result that cannot be printed (stdout on a full disk) is one line and
    EX_IOERR (74), with --json too (the error document cannot be printed either), never exit 1 (SPEC 19: 1 is a
    preflight or lock result)."""
    code, err = _to_full_stdout(brain, *json_flag, "claim", "list")
    assert code == 74 and "Traceback" not in err and err.count("\n") == 1 and err.startswith("bsi: "), err


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
def test_a_change_whose_result_cannot_be_printed_does_not_say_nothing_was_committed(brain: Path) -> None:
    """The claim was opened and committed before its ID was printed: the line says stdout lost it, not
    that the command committed nothing."""
    code, err = _to_full_stdout(brain, "claim", "open", "--scope", "a/", "--slug", "lost")
    assert code == 74 and "Traceback" not in err and err.count("\n") == 1, err
    assert "committed nothing" not in err and "stdout" in err
    assert "bsi: open claim sess-" in git(brain, "log", "-1", "--format=%s")
