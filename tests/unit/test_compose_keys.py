"""brain-compose.yml keys read where SPEC 12 says they may be written."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.config import load_config


@pytest.mark.parametrize("text", [
    # under a mode written as a list of modes
    "modes:\n  - name: deep\n    circuit_breaker:\n      max_consecutive_fails: 2\n",
    # nested deeper than the usual `modes.<name>` level
    "a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h:\n        i:\n         j:\n"
    "          circuit_breaker:\n           max_consecutive_fails: 2\n",
])
def test_max_consecutive_fails_read_anywhere_in_the_file(tmp_path: Path, text: str) -> None:
    (tmp_path / "brain-compose.yml").write_text(text, encoding="utf-8")
    assert load_config(tmp_path).max_consecutive_fails == 2


def test_top_level_max_consecutive_fails_wins_over_a_mode(tmp_path: Path) -> None:
    (tmp_path / "brain-compose.yml").write_text(
        "modes:\n  - circuit_breaker:\n      max_consecutive_fails: 2\n"
        "circuit_breaker:\n  max_consecutive_fails: 4\n", encoding="utf-8")
    assert load_config(tmp_path).max_consecutive_fails == 4


def test_a_brain_compose_that_is_no_regular_file_reads_as_unreadable_without_blocking(tmp_path: Path) -> None:
    """A FIFO (or a link to a device such as /dev/tty) never holds a read: it is an unreadable file (SPEC 22)."""
    import os
    import threading

    os.mkfifo(tmp_path / "brain-compose.yml")
    answers: list[object] = []
    reader = threading.Thread(target=lambda: answers.append(load_config(tmp_path)), daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # let the blocked reader go before failing
        fd = os.open(tmp_path / "brain-compose.yml", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        reader.join(5)
        pytest.fail("reading brain-compose.yml blocked on a FIFO")
    config = answers[0]
    assert config.problem is not None and "regular file" in config.problem  # type: ignore[attr-defined]
    assert config.unclaimed_writes == "deny"  # type: ignore[attr-defined]
