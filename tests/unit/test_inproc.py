"""The in-process runner (tests/inproc.py) gives what a `bsi` process gives and fails a call that leaves
something behind."""

from __future__ import annotations

import importlib
import os
import threading
from pathlib import Path

import pytest

from tests.bsi import clean_env, run_bsi
from tests.inproc import NeedsProcess, call_main

cli_main = importlib.import_module("brain_tui.cli.main")


def test_in_process_and_in_a_process_give_the_same_run(brain: Path) -> None:
    for args in (("--version",), ("--json", "claim", "list"), ("claim", "open", "--no-such-flag")):
        assert run_bsi(*args, brain=brain) == run_bsi(*args, brain=brain, process=True), args


def test_the_call_sees_its_environment_folder_and_stdin_and_the_test_gets_its_own_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, str] = {}

    def main(argv: list[str]) -> int:
        import sys

        seen.update(env=os.environ.get("ONLY_IN_THE_CALL", ""), cwd=os.getcwd(), stdin=sys.stdin.buffer.read().decode())
        sys.stdout.write("out\r\n")
        sys.stderr.write("err\n")
        raise SystemExit(3)

    monkeypatch.setattr(cli_main, "main", main)
    before = (dict(os.environ), os.getcwd())
    code, out, err = call_main(["x"], clean_env(ONLY_IN_THE_CALL="1"), tmp_path, "payload")
    assert (code, out, err) == (3, "out\n", "err\n")
    assert seen == {"env": "1", "cwd": str(tmp_path), "stdin": "payload"}
    assert (dict(os.environ), os.getcwd()) == before


def test_a_call_that_leaves_a_file_open_or_a_thread_running_fails(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    kept: list[object] = []
    monkeypatch.setattr(cli_main, "main", lambda argv: kept.append(open(tmp_path / "f", "w")) or 0)  # noqa: SIM115
    with pytest.raises(AssertionError, match="left behind: file descriptor"):
        call_main(["x"], clean_env(), tmp_path, None)
    stop = threading.Event()
    monkeypatch.setattr("tests.inproc.THREAD_GRACE_S", 0.1)
    monkeypatch.setattr(cli_main, "main", lambda argv: threading.Thread(target=stop.wait, name="stuck").start() or 0)
    try:
        with pytest.raises(AssertionError, match="left behind: thread stuck"):
            call_main(["x"], clean_env(), tmp_path, None)
    finally:
        stop.set()
        kept[0].close()  # type: ignore[attr-defined]


def test_a_call_that_replaces_its_process_fails_instead_of_replacing_the_runner(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_main, "_main", lambda *args: os.execvp("true", ["true"]))
    with pytest.raises(NeedsProcess):
        call_main(["claim", "list"], clean_env(), tmp_path, None)
