"""`bsi preflight check` on a file no agent writes (brain-compose.yml, BRAIN-INDEX.md, a claim file) keeps SPEC 10's
codes and their order: 4 for a claim that cannot act, 1 for a file outside its scope, 5 for a kernel-zone file
written by a satellite; only past those checks is it the refusal of such a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.rules.facade import at, open_in, refused

WHEN = "2026-11-29T10:10:00Z"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A pilot on `*` and a satellite under it on `*`, the default kernel zone, kerneluser not set."""
    root = tmp_path_factory.mktemp("protocol-codes") / "brain"
    ok(run_bsi("init", str(root), cwd=root.parent))
    pilot = open_in(root, "*", type="pilote", slug="pil")
    sat = open_in(root, "*", parent=pilot, satellite_type="brain-write", slug="sat", now="2026-11-29T10:05:00Z")
    return root, pilot, sat


@pytest.mark.parametrize("file", ["brain-compose.yml", "BRAIN-INDEX.md"])
def test_a_satellite_on_a_kernel_zone_file_no_agent_writes_is_a_zone_violation(
        tree: tuple[Path, str, str], file: str) -> None:
    root, _, sat = tree
    error = refused(lambda: at(root, WHEN).preflight(sat, file), 5)
    assert "zone violation" in str(error)


@pytest.mark.parametrize("file", ["brain-compose.yml", "BRAIN-INDEX.md", "claims/x.yml"])
def test_an_unknown_claim_is_4_whatever_the_file(tree: tuple[Path, str, str], file: str) -> None:
    root, _, _ = tree
    error = refused(lambda: at(root, WHEN).preflight("sess-20261129-1000-nope", file), 4)
    assert "unknown" in str(error)


def test_a_file_no_agent_writes_outside_the_scope_is_a_scope_violation(tmp_path: Path) -> None:
    root = tmp_path / "brain"
    ok(run_bsi("init", str(root), cwd=tmp_path))
    solo = open_in(root, "notes/", slug="solo")
    error = refused(lambda: at(root, WHEN).preflight(solo, "brain-compose.yml"), 1)
    assert "outside the scope" in str(error)


def test_past_those_checks_the_file_is_still_refused(tree: tuple[Path, str, str]) -> None:
    root, pilot, _ = tree
    error = refused(lambda: at(root, WHEN).preflight(pilot, "claims/x.yml"), 1)
    assert "protocol file" in str(error)
