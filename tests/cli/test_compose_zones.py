"""brain-compose.yml's `zones.kernel` (SPEC 10, 12) written in the scope notation of SPEC 5.1: a path naming an
existing folder is that folder even without the trailing slash."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bsi import git, ok, run_bsi

ZONE_VIOLATION = 5


@pytest.fixture
def satellite(brain: Path) -> str:
    """A satellite on the whole brain (kerneluser not set), with a `docs/` folder and a `notes.md` file."""
    (brain / "docs").mkdir()
    (brain / "docs" / "a.md").write_text("a\n", encoding="utf-8")
    (brain / "notes.md").write_text("n\n", encoding="utf-8")
    git(brain, "add", "docs", "notes.md")
    git(brain, "commit", "-q", "-m", "files")
    pilot = ok(run_bsi("claim", "open", "--scope", "*", "--type", "pilote", "--slug", "pilo", brain=brain))
    return ok(run_bsi("claim", "open", "--scope", "*", "--parent", pilot, "--slug", "sat", brain=brain))


def _zone(brain: Path, entries: str) -> None:
    (brain / "brain-compose.yml").write_text(f"zones:\n  kernel: {entries}\n", encoding="utf-8")
    git(brain, "add", "brain-compose.yml")
    git(brain, "commit", "-q", "-m", "zones")


@pytest.mark.parametrize("entries", ["[docs]", "[Docs]", "docs", "[./docs]"])
def test_a_kernel_zone_entry_naming_an_existing_folder_is_that_folder(brain: Path, satellite: str,
                                                                       entries: str) -> None:
    """Before: `docs` without its slash was read as a file named `docs`, so nothing under the folder was ever in the
    kernel zone and a satellite wrote there with no human gate."""
    _zone(brain, entries)
    refused = run_bsi("preflight", "check", satellite, "docs/a.md", brain=brain)
    assert refused.code == ZONE_VIOLATION, refused.err
    assert "kernel zone" in refused.err
    assert run_bsi("preflight", "check", satellite, "notes.md", brain=brain).code == 0


def test_a_kernel_zone_entry_naming_a_file_stays_that_file(brain: Path, satellite: str) -> None:
    """A file entry is that file; a name with something written below it can only be a folder (a zone is a
    protection: the safe side), whether it exists yet or not."""
    _zone(brain, "[notes.md, later]")
    assert run_bsi("preflight", "check", satellite, "notes.md", brain=brain).code == ZONE_VIOLATION
    assert run_bsi("preflight", "check", satellite, "notes.md.bak", brain=brain).code == 0
    assert run_bsi("preflight", "check", satellite, "later/x.md", brain=brain).code == ZONE_VIOLATION
    assert run_bsi("preflight", "check", satellite, "later-on/x.md", brain=brain).code == 0
    assert run_bsi("preflight", "check", satellite, "docs/a.md", brain=brain).code == 0


@pytest.mark.parametrize("entries", ['["*"]', '["/"]', "[global]", '["."]', '["./"]'])
def test_a_kernel_zone_naming_the_whole_brain_holds_every_file(brain: Path, entries: str) -> None:
    """SPEC 5.1's global spellings in `zones.kernel` are the whole brain. Before: they were skipped as paths that do
    not normalise, so a zone meant to hold everything held nothing; the hook's index reads them the same way."""
    from tests.hooks.test_pre_tool_use import assert_denied, event, hook

    _zone(brain, entries)
    agent = "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87"
    pilot = ok(run_bsi("claim", "open", "--scope", "*", "--type", "pilote", "--slug", "pilo", brain=brain))
    sat = ok(run_bsi("claim", "open", "--scope", "src/", "--parent", pilot, "--slug", "sat", "--agent-session", agent,
                     brain=brain))
    for rel in ("src/a.py", "src/deep/b.md"):
        refused = run_bsi("preflight", "check", sat, rel, brain=brain)
        assert refused.code == ZONE_VIOLATION, (rel, refused.err)
    for _ in range(2):  # the core's answer, then the hook index's
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "src" / "a.py"), agent)),
                      "kernel zone")


@pytest.mark.parametrize("entries", ["[src/**]", "[src/*]", '["/src/"]', '["**"]'])
def test_a_kernel_zone_in_a_scope_spelling_holds_its_files_for_the_core_and_the_hook(brain: Path,
                                                                                    entries: str) -> None:
    """A folder glob is the folder (as a scope reads it), `**` the whole brain, `/src/` the brain's `src/`. Before:
    each was skipped as a path that does not normalise, so the zone held nothing there, for the core and the hook's
    index alike, and a satellite wrote with no human gate."""
    from tests.hooks.test_pre_tool_use import assert_denied, event, hook

    _zone(brain, entries)
    agent = "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87"
    pilot = ok(run_bsi("claim", "open", "--scope", "*", "--type", "pilote", "--slug", "pilo", brain=brain))
    sat = ok(run_bsi("claim", "open", "--scope", "src/", "--parent", pilot, "--slug", "sat", "--agent-session", agent,
                     brain=brain))
    refused = run_bsi("preflight", "check", sat, "src/deep/b.md", brain=brain)
    assert refused.code == ZONE_VIOLATION, refused.err
    for _ in range(2):  # the core's answer, then the hook index's
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Write", str(brain / "src" / "a.py"), agent)),
                      "kernel zone")


def test_one_odd_item_in_the_kernel_zone_keeps_the_users_other_entries(brain: Path, satellite: str) -> None:
    """Before: a number or an empty item anywhere in the list made the whole list the default zone, so the user's
    own folders (`docs`) were silently unprotected. A number is the folder of that name; an empty item is skipped."""
    _zone(brain, "[docs, 2024, ~]")
    assert run_bsi("preflight", "check", satellite, "docs/a.md", brain=brain).code == ZONE_VIOLATION
    assert run_bsi("preflight", "check", satellite, "2024/x.md", brain=brain).code == ZONE_VIOLATION
    assert run_bsi("preflight", "check", satellite, "notes.md", brain=brain).code == 0


def test_a_kernel_zone_entry_holds_the_folder_its_link_leads_to(brain: Path) -> None:
    """Zone `kern/` with `kern -> real`: `real/a.md` is the zone's file under another name. Before: only `kern/a.md`
    was refused, and a satellite wrote `real/a.md` freely, the core and the hook index agreeing."""
    from tests.hooks.test_pre_tool_use import assert_denied, event, hook

    (brain / "real").mkdir()
    (brain / "real" / "a.md").write_text("a\n", encoding="utf-8")
    (brain / "kern").symlink_to("real")
    git(brain, "add", "real", "kern")
    git(brain, "commit", "-q", "-m", "a linked folder")
    _zone(brain, "[kern/]")
    agent = "0f8e2a4c-7b1d-4e9a-a3c5-6d2f1b0e9c87"
    pilot = ok(run_bsi("claim", "open", "--scope", "*", "--type", "pilote", "--slug", "pilo", brain=brain))
    sat = ok(run_bsi("claim", "open", "--scope", "real/", "--parent", pilot, "--slug", "sat", "--agent-session", agent,
                     brain=brain))
    assert run_bsi("preflight", "check", sat, "real/a.md", brain=brain).code == ZONE_VIOLATION
    for _ in range(2):  # the core's answer, then the hook index's
        assert_denied(hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "real" / "a.md"), agent)),
                      "kernel zone")
    # the link moved elsewhere: the index is built again, and the old target is free
    (brain / "other").mkdir()
    (brain / "kern").unlink()
    (brain / "kern").symlink_to("other")
    assert run_bsi("preflight", "check", sat, "real/a.md", brain=brain).code == 0
    for _ in range(2):
        done = hook(brain, "pre-tool-use", event(brain, "Edit", str(brain / "real" / "a.md"), agent))
        assert done.returncode == 0, done


def test_a_kernel_zone_entry_that_protects_nothing_is_said_on_every_command(brain: Path) -> None:
    """A file pattern (`*.md`) or a path out of the brain names no path a zone can hold: skipped, it protected nothing
    without a word. Now every command says which entries, as for a `timezone:` or `sync:` not read as written."""
    _zone(brain, '["*.md", docs/, "../x"]')
    res = run_bsi("claim", "list", brain=brain)
    assert res.code == 0
    warning = [line for line in res.err.splitlines() if "zones.kernel" in line]
    assert len(warning) == 1 and "'*.md', '../x'" in warning[0] and "protects nothing" in warning[0], res.err
    _zone(brain, "[docs/, '*', agents/**]")
    assert "zones.kernel" not in run_bsi("claim", "list", brain=brain).err
