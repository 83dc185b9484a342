"""What HEAD holds is read as git stores it, and a blob is its ID's bytes or nothing (SPEC 21, 22).

git never checks, on reading a loose object, that its bytes hash to its ID; `.git/objects` is a folder an agent's
shell may write (its sandbox leaves `.git` writable, save hooks and config). A read that trusts "the work tree's
file hashes to HEAD's blob ID, so HEAD holds what the work tree holds" then read a forged object: a paused claim's
blob rewritten in place as a closed claim put the claim in the closed set once HEAD's claims tree moved away and
back, and its scope was free for a second claim. bsi reads a blob only when its bytes hash to its ID.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


def _bsi(clone: Path, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=None)


def _forge_loose(clone: Path, oid: str, data: bytes) -> None:
    """Write `data` as the loose object `oid` (an agent's program; git never checks the hash on reading)."""
    path = clone / ".git" / "objects" / oid[:2] / oid[2:]
    if not path.exists():  # packed: the loose copy of the same ID is what the agent adds
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        path.chmod(0o644)
    path.write_bytes(zlib.compress(b"blob %d\0" % len(data) + data))


def test_a_forged_blob_never_reads_a_paused_claim_as_closed(tmp_path: Path) -> None:
    _, (clone,) = make_remote(tmp_path, 1)
    sess = _bsi(clone, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    assert _bsi(clone, "gate", "pause", sess, "stop").code == 0
    rel = f"claims/{sess}.yml"
    paused_commit = git(clone, "rev-parse", "HEAD").strip()
    real = git(clone, "rev-parse", f"HEAD:{rel}").strip()
    # the agent: a commit of HEAD without the claim, read by bsi (its own hook runs on each tool call) ...
    tree = git(clone, "rev-parse", "HEAD^{tree}").strip()
    git(clone, "read-tree", tree)
    git(clone, "rm", "--cached", "--quiet", rel)
    without = git(clone, "commit-tree", git(clone, "write-tree").strip(), "-p", paused_commit, "-m", "x").strip()
    git(clone, "update-ref", "HEAD", without)
    git(clone, "read-tree", tree)
    assert json.loads(_bsi(clone, "--json", "claim", "list").out)["claims"]  # the work tree still holds it
    # ... then the paused blob rewritten in place as a closed claim, and HEAD moved back
    closed = (clone / rel).read_bytes().replace(b"status: paused", b"status: closed")
    _forge_loose(clone, real, closed)
    git(clone, "update-ref", "HEAD", paused_commit)
    listed = json.loads(_bsi(clone, "--json", "claim", "list").out)["claims"]
    assert [c["status"] for c in listed if c["sess_id"] == sess] == ["paused"]
    second = _bsi(clone, "claim", "open", "--scope", "proj/", "--slug", "x")
    assert second.code == 10, (second.code, second.out, second.err)
