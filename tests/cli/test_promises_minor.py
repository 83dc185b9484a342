"""Issue 11's minor list: each reproduced case through `bsi`, with one clear line and SPEC's exit code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import NOW, Run, load_claim, ok, run_bsi, tree_bytes

Bsi = Callable[..., Run]


def opened(brain: Path, *args: str, now: str = NOW) -> str:
    """Open a claim, return its ID."""
    return ok(run_bsi("claim", "open", *args, brain=brain, now=now))


def test_section_titles_with_extra_spaces_or_closing_marks_match(brain: Path, bsi: Bsi) -> None:
    first = opened(brain, "--scope", "todo.md#Sprint 3")
    for spelling in ("todo.md ##  Sprint   3", "todo.md ## Sprint 3 ##", "todo.md#sprint 3 #"):
        check = bsi("check-scope", spelling, brain=brain)
        assert check.code == 10 and first in check.out, spelling
    ok(bsi("check-scope", "todo.md#Sprint 4", brain=brain))
    ok(bsi("check-scope", "todo.md#C#", brain=brain))


def test_folder_glob_is_the_folder_and_other_globs_are_refused(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "agents/*")
    assert load_claim(brain, sess)["scope"] == "agents/"
    assert bsi("check-scope", "agents/x.md", brain=brain).code == 10
    before = tree_bytes(brain)
    for pattern in ("agents/*.md", "a?.md", "**"):
        run = bsi("claim", "open", "--scope", pattern, brain=brain)
        assert run.code == 65 and "glob" in run.err, (pattern, run)
    assert tree_bytes(brain) == before


def test_a_scope_reads_the_same_typed_or_from_a_file(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "a/ b.md")
    assert load_claim(brain, sess)["scope"] == ["a/", "b.md"]
    assert bsi("check-scope", "b.md", brain=brain).code == 10
    assert bsi("check-scope", "a/x.md", brain=brain).code == 10


def test_test_counts_are_ascii_whole_numbers(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "be/x.py", "--satellite-type", "code")
    for bad in ("-5", "１２", "٣"):
        run = bsi("claim", "close", sess, "--tests-total", bad, "--tests-passed", "0", "--tests-failed", "0",
                  brain=brain)
        assert run.code == 65, (bad, run)
    assert load_claim(brain, sess)["status"] == "open"


def test_ttls_are_ascii_digits(brain: Path, bsi: Bsi) -> None:
    for bad in ("２h", "١h", "99999999999999h"):
        run = bsi("claim", "open", "--scope", "be/", "--ttl", bad, brain=brain)
        assert run.code == 65 and "Traceback" not in run.err, (bad, run)
    assert not list((brain / "claims").glob("*.yml"))



def test_lock_ttl_is_ascii_digits(brain: Path, bsi: Bsi) -> None:
    sess = opened(brain, "--scope", "be/")
    for bad in ("²", "١٢"):
        run = bsi("lock", "acquire", "be/x.py", sess, bad, brain=brain)
        assert run.code == 65 and "Traceback" not in run.err, (bad, run)
