"""A claim's slug (SPEC 4: `[a-z0-9][a-z0-9-]*`): the ones accepted, the ones refused (exit 65, one line,
nothing written), asked of `Brain` in process and once through `bsi`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import run_bsi
from tests.conftest import tree_bytes
from tests.rules.facade import open_in, refused

ACCEPTED = ["a", "pilote-be5", "x" * 64]
#: A slug long enough that its claim file's name (and the atomic write's temporary name) passes 255 bytes.
REFUSED = ["Caps", "-x", "a_b", "a b", "é", "x" * 65, "x" * 300]


@pytest.mark.parametrize("slug", ACCEPTED)
def test_slug_accepted(brain: Path, slug: str) -> None:
    assert open_in(brain, "a/", slug=slug) == f"sess-20261129-1000-{slug}"


@pytest.mark.parametrize("slug", REFUSED)
def test_slug_refused_and_nothing_written(brain: Path, slug: str) -> None:
    files = tree_bytes(brain)
    error = refused(lambda: open_in(brain, "a/", slug=slug), 65)
    assert "slug" in str(error) and "\n" not in str(error)
    assert tree_bytes(brain) == files


def test_bsi_long_slug_is_invalid_data_not_an_internal_error(brain: Path) -> None:
    files = tree_bytes(brain)
    run = run_bsi("claim", "open", "--scope", "a/", "--slug", "x" * 300, brain=brain)
    assert run.code == 65 and run.out == "" and run.err.count("\n") == 1 and "slug" in run.err, run
    assert tree_bytes(brain) == files
