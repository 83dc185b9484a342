"""SPEC 5.1 and 13, to the letter: a scope typed now names what the brain holds, else exit 65, nothing written.

- A section is "one `##` section of a markdown file": `src/a.py#Intro` names no section. Read as one, two claims on
  `src/a.py#A` and `src/a.py#B` did not intersect (two sections of one file), and each holder's preflight let it
  write the whole of `src/a.py`: the one file held twice.
- A trailing slash makes a dir; on a path that is a file in the brain it named a folder that cannot exist there.
  The claim held the file against everyone (a `direct` conflict) while its own holder's preflight called the file
  outside its scope (exit 1): a file nobody could write.

Both are a bad scope on the command line (SPEC 13): exit 65 with one line saying what and why, nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bsi import git, head, ok, run_bsi


@pytest.fixture
def brain(tmp_path: Path) -> Path:
    """A brain holding one python file and one markdown file."""
    root = tmp_path / "brain"
    ok(run_bsi("init", str(root)))
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("## not a heading\nx = 1\n")
    (root / "notes").mkdir()
    (root / "notes" / "plan.md").write_text("# Plan\n\n## Intro\n")
    return root


@pytest.mark.parametrize("scope", ["src/a.py#Intro", "src/a.py ## Intro", "src/a.py § Intro", "src/new.yml#Keys",
                                   "Makefile#Build"])
def test_a_section_of_a_file_that_is_not_markdown_is_refused(brain: Path, scope: str) -> None:
    before = head(brain)
    opened = run_bsi("claim", "open", "--scope", scope, "--slug", "sec", brain=brain)
    assert opened.code == 65, opened.out + opened.err
    assert "markdown" in opened.err and len(opened.err.strip().splitlines()) == 1, opened.err
    assert opened.out == ""
    assert head(brain) == before and not list((brain / "claims").glob("sess-*.yml"))
    asked = run_bsi("--json", "check-scope", scope, brain=brain)
    assert asked.code == 65, asked.out + asked.err


@pytest.mark.parametrize("scope", ["notes/plan.md#Intro", "notes/new.md ## Intro", "docs/guide.markdown#Setup",
                                   "NOTES/README.MD § Intro"])
def test_a_section_of_a_markdown_file_is_taken(brain: Path, scope: str) -> None:
    opened = run_bsi("--json", "claim", "open", "--scope", scope, "--slug", "sec", brain=brain)
    assert opened.code == 0, opened.err
    assert json.loads(opened.out)["status"] == "open"


def test_a_trailing_slash_on_a_file_of_the_brain_is_refused(brain: Path) -> None:
    before = head(brain)
    for scope in ("src/a.py/", "./notes/plan.md/", "notes//plan.md/"):
        opened = run_bsi("claim", "open", "--scope", scope, "--slug", "slash", brain=brain)
        assert opened.code == 65, (scope, opened.out + opened.err)
        assert "file" in opened.err and len(opened.err.strip().splitlines()) == 1, opened.err
        asked = run_bsi("check-scope", scope, brain=brain)
        assert asked.code == 65, (scope, asked.out + asked.err)
    assert head(brain) == before and not list((brain / "claims").glob("sess-*.yml"))
    assert git(brain, "status", "--porcelain", "--", "claims") == ""


def test_a_trailing_slash_on_a_new_path_or_a_folder_is_a_folder(brain: Path) -> None:
    opened = run_bsi("claim", "open", "--scope", "src/", "--scope", "later/new.md/", "--slug", "dirs", brain=brain)
    assert opened.code == 0, opened.err
    sess = opened.out.strip()
    go = run_bsi("preflight", "check", sess, "src/a.py", brain=brain)
    assert go.code == 0, go.err
