"""Preflight's scope check (SPEC 10, code 1), asked of `Brain` in process: a file outside every scope entry of
the claim, however it is spelled (`..`, absolute, a sibling folder's prefix, the folder itself), is refused.
tests/cli/test_preflight.py keeps one `bsi` case for the exit code, the JSON and the message."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.rules.facade import at, open_in, refused

OUTSIDE = ["other.md", "brain-engine-old/x.py", "brain-engine/../agents/x.md", "../brain-engine/x.py",
           "/brain-engine/x.py", "brain-engine"]


@pytest.fixture(scope="module")
def satellite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A brain with a pilot on `brain-engine/ agents/ docs/` and a brain-write satellite on `brain-engine/ agents/`."""
    root = tmp_path_factory.mktemp("preflight") / "brain"
    ok(run_bsi("init", str(root), cwd=root.parent))
    pilot = open_in(root, "brain-engine/", "agents/", "docs/", type="pilote", slug="pil")
    sat = open_in(root, "brain-engine/", "agents/", parent=pilot, satellite_type="brain-write", slug="sat",
                  now="2026-11-29T10:05:00Z")
    return root, sat


@pytest.mark.parametrize("path", OUTSIDE)
def test_a_file_outside_the_scope_is_a_scope_violation(satellite: tuple[Path, str], path: str) -> None:
    root, sat = satellite
    error = refused(lambda: at(root, "2026-11-29T10:10:00Z").preflight(sat, path), 1)
    assert "scope violation" in str(error), str(error)


def test_the_same_satellite_may_write_inside_its_scope(satellite: tuple[Path, str]) -> None:
    root, sat = satellite
    assert at(root, "2026-11-29T10:10:00Z").preflight(sat, "./brain-engine//server.py").file == "brain-engine/server.py"


def test_a_folder_asked_with_its_slash_is_that_folder_written_whole(satellite: tuple[Path, str]) -> None:
    """`bsi preflight check ID brain-engine/` asks for the folder written whole, as the shell's `rm -r` is judged:
    the holder of `brain-engine/` may (it was read as a file named `brain-engine`, outside its own scope); a folder
    it does not hold, or one that holds it only in part, is still a scope violation."""
    root, sat = satellite
    brain = at(root, "2026-11-29T10:10:00Z")
    assert brain.preflight(sat, "brain-engine/").file == "brain-engine"
    assert brain.preflight(sat, "./brain-engine/new/").file == "brain-engine/new"
    for path in ("docs/", "./", "brain-engine-old/"):
        error = refused(lambda path=path: brain.preflight(sat, path), 1)  # type: ignore[misc]
        assert "scope violation" in str(error), str(error)
