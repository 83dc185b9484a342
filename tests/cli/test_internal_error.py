"""An unexpected error inside `bsi` reaches the user as one line and exit 70, never a traceback."""

from __future__ import annotations

import importlib
import json

import pytest

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
