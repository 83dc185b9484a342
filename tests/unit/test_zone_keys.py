"""`zones.kernel` entries (SPEC 10, 12) read as the scope notation of SPEC 5.1 reads them, on the side of the
protection: an entry is never skipped when it names a folder or the whole brain in a spelling a scope takes or the
brain's root spells (`agents/**`, `**`, `/agents/`)."""

from __future__ import annotations

import pytest

from brain_tui.core.paths.scope import parse_entry
from brain_tui.core.paths.scope_paths import zone_keys
from brain_tui.core.rules.preflight import in_zone


@pytest.mark.parametrize("entry", ["agents/*", "agents/**", " agents/** ", "Agents/*", "./agents/**"])
def test_a_folder_glob_is_the_folder_a_scope_reads_it_as(entry: str) -> None:
    """`agents/*` is the scope `agents/` (`scope.parse_entry`); the zone skipped it, so a satellite wrote there."""
    assert parse_entry(entry).key == "agents"
    assert zone_keys([entry]) == ["agents"]
    assert in_zone("agents/x.md", [entry]) and in_zone("agents/deep/y.md", [entry])
    assert not in_zone("agents-old/x.md", [entry])


@pytest.mark.parametrize("entry", ["agents/**/*", "agents/**/", "agents/*/", "agents/**/**", "/agents/**/*"])
def test_a_run_of_folder_globs_is_the_folder(entry: str) -> None:
    """`agents/**/*` (every file below `agents/`, as .gitignore and most tools spell it) was skipped as "another
    glob": the zone protected nothing there and a satellite wrote in it with no human gate."""
    assert zone_keys([entry]) == ["agents"]
    assert in_zone("agents/x.md", [entry]) and in_zone("agents/deep/y.md", [entry])
    assert not in_zone("agents-old/x.md", [entry])


@pytest.mark.parametrize("entry", ["*", "**", "*/", "/*", "/**", "//", "/.", "./.", ".//", "./*", "global", "."])
def test_an_entry_of_slashes_dots_and_stars_alone_is_the_whole_brain(entry: str) -> None:
    assert zone_keys([entry]) == [""]
    assert in_zone("src/a.py", [entry])


@pytest.mark.parametrize(("entry", "key"), [("/agents/", "agents"), ("/KERNEL.md", "kernel.md"),
                                            ("//scripts", "scripts")])
def test_a_leading_slash_names_the_brain_root(entry: str, key: str) -> None:
    """The zone names brain paths: `/agents/` can only mean the brain's `agents/` (reading it so only adds
    refusals); skipped, it protected nothing."""
    assert zone_keys([entry]) == [key]


@pytest.mark.parametrize("entry", ["../agents/", "..", "/../", "a/../b", "*.md", "agents/*.md", "x\x00y", ""])
def test_an_entry_naming_no_brain_path_is_skipped(entry: str) -> None:
    assert zone_keys([entry, "docs/"]) == ["docs"]
