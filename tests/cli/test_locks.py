"""`bsi lock acquire|release|check|list|cleanup`: file mutexes (SPEC 9, defect 14.6)."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path
from urllib.parse import quote

import pytest
import yaml

from tests.bsi import INHERITED_ENV, run_bsi
from tests.cli import lock_brain
from tests.cli.lock_brain import A, B, bsi, git
from tests.paths import LEGACY

#: alfa and bravo each hold an 8 h claim (a lock belongs to a claim, issue 11); no lock yet.
base_brain, brain = lock_brain.fixtures()


def lock_file(brain: Path, file: str) -> Path:
    """Where the lock of `file` must live: `locks/<percent-encoded>.yml`."""
    return brain / "locks" / (quote(file, safe="") + ".yml")


def read_lock(brain: Path, file: str) -> dict:
    """The lock file of `file`, parsed."""
    return yaml.safe_load(lock_file(brain, file).read_text(encoding="utf-8"))


def test_acquire_writes_the_lock_file_and_commits_only_it(brain: Path) -> None:
    proc = bsi(brain, "--json", "lock", "acquire", "./agents//foo.md", A, "30")
    assert proc.code == 0, proc.err
    out = json.loads(proc.out)
    assert out["action"] == "acquired" and out["generation"] == 1 and out["holder"] == A
    assert out["file"] == "agents/foo.md" and out["takeover"] is False
    data = read_lock(brain, "agents/foo.md")
    assert set(data) == {"file", "holder", "generation", "claimed_at", "expires_at", "ttl_min"}
    assert data["file"] == "agents/foo.md" and data["holder"] == A
    assert data["generation"] == 1 and data["ttl_min"] == 30
    assert data["expires_at"].startswith("2026-11-29T") and ":30:00" in data["expires_at"]
    assert git(brain, "log", "-1", "--format=%s").strip() == "bsi: lock acquire agents/foo.md"
    assert git(brain, "show", "--name-only", "--format=", "HEAD").split() == [
        f"locks/{quote('agents/foo.md', safe='')}.yml"]


def test_default_ttl_is_60_minutes(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "todo/x.md", A).code == 0
    assert read_lock(brain, "todo/x.md")["ttl_min"] == 60


def test_reentry_by_the_holder_extends_with_the_same_generation(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "agents/foo.md", A, "30").code == 0
    first = read_lock(brain, "agents/foo.md")
    proc = bsi(brain, "--json", "lock", "acquire", "agents/foo.md", A, "30", now="2026-11-29T10:20:00Z")
    assert proc.code == 0, proc.err
    assert json.loads(proc.out)["action"] == "extended"
    again = read_lock(brain, "agents/foo.md")
    assert again["generation"] == 1
    assert again["claimed_at"] == first["claimed_at"]
    assert again["expires_at"] != first["expires_at"] and ":50:00" in again["expires_at"]


def test_another_session_is_refused_with_exit_1_naming_holder_and_expiry(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "agents/foo.md", A, "30").code == 0
    before = lock_file(brain, "agents/foo.md").read_text()
    head = git(brain, "rev-parse", "HEAD")
    proc = bsi(brain, "lock", "acquire", "agents/foo.md", B, now="2026-11-29T10:10:00Z")
    assert proc.code == 1
    assert A in proc.err and read_lock(brain, "agents/foo.md")["expires_at"] in proc.err
    assert lock_file(brain, "agents/foo.md").read_text() == before
    assert git(brain, "rev-parse", "HEAD") == head
    refused = json.loads(bsi(brain, "--json", "lock", "acquire", "agents/foo.md", B).out)
    assert refused["exit"] == 1 and refused["holder"] == A


def test_expired_lock_is_taken_over_with_generation_plus_one(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "agents/foo.md", A, "30").code == 0
    proc = bsi(brain, "--json", "lock", "acquire", "agents/foo.md", B, now="2026-11-29T10:31:00Z")
    assert proc.code == 0, proc.err
    out = json.loads(proc.out)
    assert out["action"] == "taken_over" and out["takeover"] is True
    assert out["previous_holder"] == A and out["generation"] == 2
    assert "takeover" in proc.err and A in proc.err
    data = read_lock(brain, "agents/foo.md")
    assert data["holder"] == B and data["generation"] == 2
    text = bsi(brain, "lock", "acquire", "agents/foo.md", A, now="2026-11-29T12:00:00Z")
    assert text.code == 0 and "takeover" in text.err and B in text.err
    assert read_lock(brain, "agents/foo.md")["generation"] == 3


def test_release_by_non_holder_exits_2_and_holder_release_deletes(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "agents/foo.md", A).code == 0
    proc = bsi(brain, "lock", "release", "agents/foo.md", B)
    assert proc.code == 2 and A in proc.err
    assert lock_file(brain, "agents/foo.md").exists()
    proc = bsi(brain, "--json", "lock", "release", "agents/foo.md", A)
    assert proc.code == 0, proc.err
    assert json.loads(proc.out)["released"] is True
    assert not lock_file(brain, "agents/foo.md").exists()
    assert git(brain, "log", "-1", "--format=%s").strip() == "bsi: lock release agents/foo.md"
    assert git(brain, "ls-files", "locks/").split() == ["locks/.gitkeep"]


def test_lock_names_never_collide(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "agents/foo.md", A).code == 0
    proc = bsi(brain, "lock", "acquire", "agents-foo/md", B)
    assert proc.code == 0, proc.err
    assert lock_file(brain, "agents/foo.md") != lock_file(brain, "agents-foo/md")
    assert read_lock(brain, "agents/foo.md")["holder"] == A
    assert read_lock(brain, "agents-foo/md")["holder"] == B
    listed = json.loads(bsi(brain, "--json", "lock", "list").out)["locks"]
    assert {(d["file"], d["holder"]) for d in listed} == {("agents/foo.md", A), ("agents-foo/md", B)}


def test_bad_paths_ttl_and_ids_exit_65(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "../outside.md", A).code == 65
    assert bsi(brain, "lock", "acquire", "/etc/passwd", A).code == 65
    assert bsi(brain, "lock", "acquire", "agents/x.md", A, "0").code == 65
    assert bsi(brain, "lock", "acquire", "agents/x.md", A, "ten").code == 65
    assert bsi(brain, "lock", "acquire", "agents/x.md", "../../etc").code == 65
    assert sorted(p.name for p in (brain / "locks").iterdir()) == [".gitkeep"]


def test_check_list_and_cleanup(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "a.md", A, "10").code == 0
    assert bsi(brain, "lock", "acquire", "b.md", B, "60").code == 0
    proc = bsi(brain, "--json", "lock", "check", "a.md")
    assert proc.code == 1
    assert json.loads(proc.out)["lock"]["holder"] == A
    free = bsi(brain, "--json", "lock", "check", "c.md")
    assert free.code == 0 and json.loads(free.out) == {"file": "c.md", "locked": False, "lock": None}
    later = "2026-11-29T10:30:00Z"
    expired = json.loads(bsi(brain, "--json", "lock", "check", "a.md", now=later).out)
    assert expired["locked"] is False and expired["lock"]["expired"] is True
    proc = bsi(brain, "--json", "lock", "cleanup", now=later)
    assert proc.code == 0, proc.err
    assert [d["file"] for d in json.loads(proc.out)["removed"]] == ["a.md"]
    assert not lock_file(brain, "a.md").exists() and lock_file(brain, "b.md").exists()
    assert git(brain, "log", "-1", "--format=%s").strip() == "bsi: lock cleanup"


# -- legacy `.lock` files ------------------------------------------------------------------------
@pytest.fixture
def legacy_brain(tmp_path: Path) -> Path:
    """A writable copy of the legacy fixture folder, made a git brain."""
    target = tmp_path / "legacy"
    shutil.copytree(LEGACY, target)
    for path in [target, *target.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    proc = run_bsi("init", str(target), now=None, env=INHERITED_ENV, timeout=None)
    assert proc.code == 0, proc.err
    return target


HOLDER = "sess-20260316-2145-brain-engine-code"


def _claim_a(brain: Path) -> None:
    """Open A's claim in the legacy brain (a lock belongs to a claim)."""
    proc = bsi(brain, "claim", "open", "--scope", "alfa/", "--ttl", "8h", "--slug", "alfa", now="2026-11-29T10:00")
    assert proc.code == 0 and proc.out.strip() == A, proc.err


def test_legacy_lock_is_read_and_blocks(legacy_brain: Path) -> None:
    _claim_a(legacy_brain)
    # Legacy naive times are local to the brain: a naive --now is read the same way.
    proc = bsi(legacy_brain, "--json", "lock", "check", "agents/foo.md", now="2026-11-29T16:00")
    assert proc.code == 1
    info = json.loads(proc.out)["lock"]
    assert info["holder"] == HOLDER and info["legacy"] is True and info["ttl_min"] == 30
    refused = bsi(legacy_brain, "lock", "acquire", "agents/foo.md", A, now="2026-11-29T16:00")
    assert refused.code == 1 and HOLDER in refused.err
    assert bsi(legacy_brain, "lock", "release", "agents/foo.md", A, now="2026-11-29T16:00").code == 2
    assert (legacy_brain / "locks" / "agents-foo-md.lock").exists()


def test_legacy_lock_takeover_rewrites_in_new_format(legacy_brain: Path) -> None:
    _claim_a(legacy_brain)
    proc = bsi(legacy_brain, "--json", "lock", "acquire", "agents/foo.md", A, now="2026-11-29T16:29")
    assert proc.code == 0, proc.err
    out = json.loads(proc.out)
    assert out["action"] == "taken_over" and out["previous_holder"] == HOLDER and out["generation"] == 2
    assert out["replaced_legacy"] == ["locks/agents-foo-md.lock"]
    assert not (legacy_brain / "locks" / "agents-foo-md.lock").exists()
    data = read_lock(legacy_brain, "agents/foo.md")
    assert data["holder"] == A and data["generation"] == 2


def test_legacy_lock_reentry_by_its_holder_rewrites_it(legacy_brain: Path) -> None:
    # the fixture's holder is long stale (it takes no lock): the legacy lock is given to an open claim
    _claim_a(legacy_brain)
    legacy = legacy_brain / "locks" / "agents-foo-md.lock"
    legacy.write_text(legacy.read_text(encoding="utf-8").replace(HOLDER, A), encoding="utf-8")
    git(legacy_brain, "add", "locks/agents-foo-md.lock")
    git(legacy_brain, "commit", "-qm", "legacy lock of alfa")
    proc = bsi(legacy_brain, "--json", "lock", "acquire", "agents/foo.md", A, "30", now="2026-11-29T16:10")
    assert proc.code == 0, proc.err
    assert json.loads(proc.out)["action"] == "extended"
    assert not legacy.exists()
    data = read_lock(legacy_brain, "agents/foo.md")
    assert data["holder"] == A and data["generation"] == 1 and data["ttl_min"] == 30


def test_a_stale_holder_does_not_extend_its_legacy_lock(legacy_brain: Path) -> None:
    proc = bsi(legacy_brain, "lock", "acquire", "agents/foo.md", HOLDER, "30", now="2026-11-29T16:10")
    assert proc.code == 12 and "stale" in proc.err, proc
    assert (legacy_brain / "locks" / "agents-foo-md.lock").exists()


def test_a_shorter_reentry_keeps_the_later_expiry_and_the_ttl_that_set_it(brain: Path) -> None:
    # 60 min from 10:00 ends at 11:00; 10 min asked at 10:20 would end at 10:30: a re-entry never shortens a lock,
    # so 11:00 stays, and so does the 60 that set it (the record never pairs one acquire's TTL with another's expiry)
    assert bsi(brain, "lock", "acquire", "agents/foo.md", A, "60").code == 0
    first = read_lock(brain, "agents/foo.md")
    proc = bsi(brain, "--json", "lock", "acquire", "agents/foo.md", A, "10", now="2026-11-29T10:20:00Z")
    assert proc.code == 0, proc.err
    out = json.loads(proc.out)
    again = read_lock(brain, "agents/foo.md")
    assert again["expires_at"] == first["expires_at"] and ":00:00" in again["expires_at"]
    assert again["ttl_min"] == 60 and again["claimed_at"] == first["claimed_at"]
    assert out["expires_at"] == again["expires_at"] and out["ttl_min"] == 60 and out["asked_ttl_min"] == 10
    text = bsi(brain, "lock", "acquire", "agents/foo.md", A, "10", now="2026-11-29T10:25:00Z")
    assert text.code == 0, text.err
    assert "kept" in text.out and "10 min" in text.out and "extended" not in text.out
    assert read_lock(brain, "agents/foo.md") == again
    listed = json.loads(bsi(brain, "--json", "lock", "check", "agents/foo.md", now="2026-11-29T10:25:00Z").out)
    assert listed["lock"]["ttl_min"] == 60 and listed["lock"]["expires_at"] == again["expires_at"]


def test_a_longer_reentry_records_its_own_ttl(brain: Path) -> None:
    assert bsi(brain, "lock", "acquire", "agents/foo.md", A, "30").code == 0
    proc = bsi(brain, "--json", "lock", "acquire", "agents/foo.md", A, "45", now="2026-11-29T10:20:00Z")
    assert proc.code == 0, proc.err
    out = json.loads(proc.out)
    data = read_lock(brain, "agents/foo.md")
    assert data["ttl_min"] == 45 and ":05:00" in data["expires_at"]
    assert out["ttl_min"] == 45 and "asked_ttl_min" not in out
    text = bsi(brain, "lock", "acquire", "agents/foo.md", A, "45", now="2026-11-29T10:30:00Z")
    assert text.code == 0 and "extended" in text.out, text
