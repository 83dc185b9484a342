"""A human's decision is committed as bsi wrote it, whatever bits the index gives its file (SPEC 21, 22).

`.git/index` is a file of the git directory, which an agent's shell may write (its sandbox leaves `.git` writable):
`git update-index --skip-worktree` or `--assume-unchanged` on a claim file tells git the work tree's copy is the
index's. bsi's commit stages over a copy of that index, so git skipped the file it was told to stage: a human's
pause was committed as a deletion of the claim (skip-worktree under `--remove`), or not at all (assume-unchanged),
and `bsi sync` then pushed a remote where the claim's scope was free.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from brain_tui.core.sync.commits import commit_paths
from tests.bsi import Run, clean_env, run_bsi

from .harness import git, make_remote, racer_env, remote_claims

NOW = "2026-11-29T10:00:00+00:00"


def _bsi(clone: Path, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=None)


@pytest.mark.parametrize("bit", ["--skip-worktree", "--assume-unchanged"])
def test_a_human_pause_commits_whatever_bit_the_index_gives_the_claim(tmp_path: Path, bit: str) -> None:
    remote, (clone,) = make_remote(tmp_path, 1)
    sess = _bsi(clone, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    rel = f"claims/{sess}.yml"
    git(clone, "update-index", bit, rel)  # the agent's step: the git directory only
    paused = _bsi(clone, "--sync", "gate", "pause", sess, "stop")
    assert paused.code == 0, (paused.code, paused.out, paused.err)
    head = git(clone, "show", f"HEAD:{rel}")
    assert "status: paused" in head
    assert (clone / rel).read_text(encoding="utf-8") == head
    listed = {c["sess_id"]: c["status"] for c in remote_claims(remote, tmp_path)}
    assert listed.get(sess) == "paused", listed
    shown = json.loads(_bsi(clone, "--json", "claim", "list").out)["claims"]
    assert [c["status"] for c in shown if c["sess_id"] == sess] == ["paused"]


def _forge_entry(index: Path, rel: str, oid: str) -> None:
    """Give the index entry of `rel` the blob `oid`, its stat data kept (an agent's program writing `.git/index`)."""
    data = bytearray(index.read_bytes())
    assert data[:4] == b"DIRC" and int.from_bytes(data[4:8], "big") == 2
    pos, name = 12, rel.encode()
    for _ in range(int.from_bytes(data[8:12], "big")):
        end = data.index(b"\0", pos + 62)
        if bytes(data[pos + 62:end]) == name:
            data[pos + 40:pos + 60] = bytes.fromhex(oid)
            break
        pos += (62 + end - (pos + 62) + 8) // 8 * 8
    else:
        raise AssertionError(f"{rel} is not in the index")
    data[-20:] = hashlib.sha1(bytes(data[:-20])).digest()
    index.write_bytes(bytes(data))


def test_stat_data_made_to_match_never_keeps_another_blob(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "claims").mkdir(parents=True)
    claim = repo / "claims" / "x.yml"
    claim.write_text("status: open\n", encoding="utf-8")
    env = clean_env(identity="Ada")
    git(tmp_path, "init", "-q", "-b", "main", str(repo), env=env)
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-q", "-m", "seed", env=env)
    open_blob = git(repo, "rev-parse", "HEAD:claims/x.yml", env=env).strip()
    claim.write_text("status: paused\n", encoding="utf-8")  # the human's write, on disk, to be committed
    os.utime(claim, ns=(time.time_ns() - 10**10,) * 2)
    git(repo, "add", "claims/x.yml", env=env)  # the entry's stat data is the file's
    _forge_entry(repo / ".git" / "index", "claims/x.yml", open_blob)  # the agent's step: HEAD's blob, same stat
    assert git(repo, "status", "--porcelain", env=env) == ""  # git believes the work tree is HEAD's
    assert commit_paths(repo, ["claims/x.yml"], "claim: pause x") is not None
    assert git(repo, "show", "HEAD:claims/x.yml", env=env) == "status: paused\n"
