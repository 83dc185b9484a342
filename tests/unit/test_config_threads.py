"""brain-compose.yml read again by two threads of one long-lived Brain (an MCP server's tool calls, side by side).

`ConfigFile.current` stored the new file's key, then the configuration read with it: a thread that asked between
the two stores found the key current and took the old configuration, and decided its write on settings the file no
longer holds.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from brain_tui.core import config as config_module
from brain_tui.core.config import BrainConfig, ConfigFile
from brain_tui.core.records import cache
from tests.threads import first_then_second


def test_a_thread_asking_while_another_reads_the_changed_file_gets_the_new_settings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 0)  # every read settled at once: its key vouches for what was read
    compose = tmp_path / "brain-compose.yml"
    compose.write_text("circuit_breaker:\n  max_consecutive_fails: 3\n", encoding="utf-8")
    config = ConfigFile(tmp_path)
    assert config.current().max_consecutive_fails == 3
    compose.write_text("circuit_breaker:\n  max_consecutive_fails: 7\n", encoding="utf-8")
    between, asked = threading.Event(), threading.Event()
    real_setattr = ConfigFile.__setattr__

    def setattr_(self: ConfigFile, name: str, value: Any) -> None:
        real_setattr(self, name, value)
        if name == "_key" and threading.current_thread().name == "first":  # switched out between the stores
            between.set()
            asked.wait(1.0)  # a reload that holds the file's lock makes the other wait: time out

    monkeypatch.setattr(ConfigFile, "__setattr__", setattr_)
    got: dict[str, BrainConfig] = {}

    def ask() -> None:
        got[threading.current_thread().name] = config.current()
        if threading.current_thread().name == "second":
            asked.set()

    first_then_second(ask, between)
    assert {name: c.max_consecutive_fails for name, c in got.items()} == {"first": 7, "second": 7}
    assert config_module.load_config(tmp_path).max_consecutive_fails == 7
