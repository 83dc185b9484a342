"""Lock files as a hand edit, a bad merge or another machine leaves them (SPEC 9, 22).

A lock file counts for the path its name decodes to, in any spelling, as well as for the path its `file:` names: when
the two differ, both files are held (fail closed). A lock file whose holder or expiry does not read is a corrupt row
that holds its file until repaired, never a lock that has already expired; a TTL too large for a date reads capped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.lock_brain import A, B, bsi, fixtures, git

base_brain, brain = fixtures()

HELD = "bravo/x.md"


def _commit_lock(brain: Path, name: str, text: str) -> None:
    """Write `locks/NAME` by hand and commit it, as a bad merge or another machine would."""
    (brain / "locks" / name).write_text(text, encoding="utf-8")
    git(brain, "add", "-A", "locks")
    git(brain, "commit", "-qm", "a lock file written by hand")


def _lock_text(file: str, holder: str = A, times: str = "claimed_at: '2026-11-29T10:00:00+00:00'\n"
               "expires_at: '2026-11-29T11:00:00+00:00'\nttl_min: 60\n") -> str:
    return f"file: {file}\nholder: {holder}\ngeneration: 1\n{times}"


@pytest.mark.parametrize("name", ["bravo%2fx.md.yml", ".%2Fbravo%2Fx.md.yml", "bravo%2F%2Fx.md.yml",
                                  "bravo%2FX.md.yml", "bravo%2Fx%2Emd.yml"])
def test_a_lock_file_named_for_one_path_and_naming_another_holds_both(brain: Path, name: str) -> None:
    _commit_lock(brain, name, _lock_text("bravo/y.md"))
    for file in (HELD, "bravo/y.md"):
        proc = bsi(brain, "lock", "acquire", file, B)
        assert proc.code == 1 and A in proc.err, (file, proc)
        proc = bsi(brain, "preflight", "check", B, file)
        assert proc.code == 2 and A in proc.err, (file, proc)
        assert bsi(brain, "lock", "check", file).code == 1, file
        proc = bsi(brain, "lock", "release", file, B)
        assert proc.code == 2, (file, proc)
    assert sorted(p.name for p in (brain / "locks").iterdir() if p.suffix == ".yml") == [name]


def test_the_hook_shortcut_counts_a_lock_file_by_its_name_too(brain: Path) -> None:
    from brain_tui.core.brain import Brain
    from brain_tui.core.sessions import hook_index
    from tests.bsi import NOW

    _commit_lock(brain, "bravo%2fx.md.yml", _lock_text("bravo/y.md"))
    b = Brain(brain, now=NOW, commit=False)
    index = hook_index.build(brain, b.snapshot(), b.config)
    assert not hook_index.may_write(index, B, HELD, b.now().timestamp())
    assert hook_index.may_write(index, B, "bravo/z.md", b.now().timestamp())


@pytest.mark.parametrize("body", [
    "holder: " + A + "\nexpires_at: tomorrow\n",
    "holder: " + A + "\nclaimed_at: at ten\n",
    "holder: " + A + "\ngeneration: 1\n",
    "holder: ''\nexpires_at: '2026-11-29T11:00:00+00:00'\n",
    "generation: 1\nexpires_at: '2026-11-29T11:00:00+00:00'\n",
    "holder: [" + A + "]\nexpires_at: '2026-11-29T11:00:00+00:00'\n",
])
def test_a_lock_file_whose_holder_or_expiry_does_not_read_is_a_corrupt_row_that_holds(brain: Path, body: str) -> None:
    _commit_lock(brain, "bravo%2Fx.md.yml", f"file: {HELD}\n{body}")
    proc = bsi(brain, "lock", "acquire", HELD, B)
    assert proc.code == 65 and "corrupt" in proc.err, proc
    assert bsi(brain, "preflight", "check", B, HELD).code == 2
    assert bsi(brain, "lock", "check", HELD).code == 1
    listed = bsi(brain, "--json", "lock", "list")
    assert listed.code == 0 and [c["path"] for c in listed.json()["corrupt"]] == ["locks/bravo%2Fx.md.yml"], listed
    assert listed.json()["locks"] == []
    assert bsi(brain, "lock", "cleanup").code == 0
    assert (brain / "locks" / "bravo%2Fx.md.yml").exists()


@pytest.mark.parametrize("ttl", ["99999999999999", "9999999"])
def test_a_huge_ttl_without_an_expiry_reads_capped_and_breaks_no_command(brain: Path, ttl: str) -> None:
    _commit_lock(brain, "bravo%2Fx.md.yml",
                 _lock_text(HELD, times=f"claimed_at: '2026-11-29T10:00:00+00:00'\nttl_min: {ttl}\n"))
    listed = bsi(brain, "--json", "lock", "list")
    assert listed.code == 0, listed
    assert [lock["expires_at"] for lock in listed.json()["locks"]] == ["2026-11-29T18:00:00+00:00"]
    proc = bsi(brain, "lock", "acquire", HELD, B)
    assert proc.code == 1 and A in proc.err, proc
    assert bsi(brain, "claim", "list").code == 0
