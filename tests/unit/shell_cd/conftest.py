"""The brain these tests read lines in: `shell_brain.make` (`claims/x.yml` and `src/`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from tests.unit import shell_brain


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)
