"""A symlink inside the brain is a second name of one folder or file: `bsi claim open`, `check-scope`, `lock`
and `preflight` key a path by the brain path its links lead to, so `alias/` and `real/` (with
`alias -> real`) are one scope and one lock (SPEC 5.2, 9, 10); what was written is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import ok, run_bsi
from tests.conftest import load_claim
from tests.refusals import assert_second_name_refused


def open_claim(brain: Path, *args: str) -> str:
    return ok(run_bsi("claim", "open", *args, brain=brain))


# The tables of second names through links are asked of `Brain` in tests/rules/test_scope_conflicts.py;
# `bsi` keeps one case of each.
@pytest.mark.parametrize(("held", "asked"), [("link.md#Sprint", "real/x.md#sprint")])
def test_a_second_name_through_a_symlink_is_refused_with_exit_10(linked: Path, held: str, asked: str) -> None:
    assert_second_name_refused(linked, held, asked)


def test_links_that_lead_nowhere_new_keep_their_own_name(linked: Path) -> None:
    open_claim(linked, "--scope", "loop/", "--slug", "loop")
    assert run_bsi("check-scope", "loop/x.md", brain=linked).code == 10
    assert run_bsi("check-scope", "ext2/", brain=linked).code == 0
    open_claim(linked, "--scope", "ext/", "--slug", "ext")
    assert run_bsi("check-scope", "ext/a.md", brain=linked).code == 10
    assert run_bsi("check-scope", "link.md#Other", "real/x.md#Sprint", brain=linked).code == 0


def test_the_written_name_is_kept_and_the_claim_covers_both_names(linked: Path) -> None:
    sess = open_claim(linked, "--scope", "alias/", "--slug", "mine")
    assert load_claim(linked, sess)["scope"] == "alias/"
    assert run_bsi("--json", "claim", "show", sess, brain=linked).json()["scope"] == "alias/"
    for file in ("alias/x.md", "real/x.md", "link.md", "alias/new.md"):
        assert run_bsi("preflight", "check", sess, file, brain=linked).code == 0, file
    assert run_bsi("preflight", "check", sess, "notes.md", brain=linked).code == 1


def test_a_lock_through_a_symlink_is_the_lock_of_its_target(linked: Path) -> None:
    first = open_claim(linked, "--scope", "one/", "--slug", "one")
    second = open_claim(linked, "--scope", "two/", "--slug", "two")
    ok(run_bsi("lock", "acquire", "alias/x.md", first, brain=linked))
    for name in ("real/x.md", "link.md", "ALIAS/x.md"):
        refused = run_bsi("lock", "acquire", name, second, brain=linked)
        assert refused.code == 1 and first in refused.err, (name, refused.err)
        assert run_bsi("lock", "check", name, brain=linked).code == 1
    assert run_bsi("lock", "release", "link.md", second, brain=linked).code == 2
    assert [p.name for p in (linked / "locks").glob("*.yml")] == ["alias%2Fx.md.yml"]
    writer = open_claim(linked, "--scope", "real/", "--slug", "writer")
    refused = run_bsi("preflight", "check", writer, "real/x.md", brain=linked)
    assert refused.code == 2 and first in refused.err, refused.err


def test_a_satellite_writing_through_a_link_into_the_kernel_zone_is_refused(linked: Path) -> None:
    pilot = open_claim(linked, "--scope", "*", "--slug", "pilot")
    sat = open_claim(linked, "--scope", "agents-link/", "--parent", pilot, "--slug", "sat")
    refused = run_bsi("preflight", "check", sat, "agents-link/x.md", brain=linked)
    assert refused.code == 5, (refused.out, refused.err)


@pytest.fixture
def way_out_and_back(brain: Path) -> tuple[Path, str]:
    """A brain in a subfolder of a repository with `up -> ..`: `up/<brain>/x` is the brain's own `x`."""
    (brain / "real").mkdir()
    (brain / "real" / "f.md").write_text("## Sprint\n")
    (brain / "agents").mkdir(exist_ok=True)
    (brain / "up").symlink_to("..")
    return brain, f"up/{brain.name}"


@pytest.mark.parametrize(("held", "asked"), [("real/", "{back}/up/{name}/real/new.md")])
def test_a_name_out_of_the_brain_and_back_in_is_the_same_scope(way_out_and_back: tuple[Path, str], held: str,
                                                                asked: str) -> None:
    brain, back = way_out_and_back
    assert_second_name_refused(brain, held.format(back=back, name=brain.name),
                               asked.format(back=back, name=brain.name))


def test_a_lock_through_a_way_out_and_back_is_the_lock_of_the_brains_file(
        way_out_and_back: tuple[Path, str]) -> None:
    brain, back = way_out_and_back
    first = open_claim(brain, "--scope", "one/", "--slug", "one")
    second = open_claim(brain, "--scope", "two/", "--slug", "two")
    ok(run_bsi("lock", "acquire", "real/f.md", first, brain=brain))
    refused = run_bsi("lock", "acquire", f"{back}/real/f.md", second, brain=brain)
    assert refused.code == 1 and first in refused.err, refused.err
    assert run_bsi("lock", "check", f"{back}/real/f.md", brain=brain).code == 1


def test_a_satellite_writing_the_kernel_zone_through_a_way_out_and_back_is_refused(
        way_out_and_back: tuple[Path, str]) -> None:
    brain, back = way_out_and_back
    pilot = open_claim(brain, "--scope", "*", "--slug", "pilot")
    sat = open_claim(brain, "--scope", f"{back}/agents/", "--parent", pilot, "--slug", "sat")
    zone = run_bsi("preflight", "check", sat, f"{back}/agents/x.md", brain=brain)
    assert zone.code == 5, (zone.out, zone.err)
