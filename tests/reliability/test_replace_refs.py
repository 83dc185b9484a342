"""What HEAD holds is read as git stores it, never through a replace ref or a graft (SPEC 22).

`refs/replace/<id>` makes git answer another object for `<id>`; `.git/info/grafts` gives commits other parents.
Both are plain files of the git directory, which an agent's shell may write through a program the hook cannot
read (its sandbox leaves `.git` writable). Through one, a paused claim's blob read as a closed claim: once the
closed set was rebuilt from HEAD, its scope was free and a second claim opened on it. bsi's git runs with
`GIT_NO_REPLACE_OBJECTS` and no graft file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from brain_tui.core.sync.gitops import git_env
from tests.bsi import Run, run_bsi

from .harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


def _bsi(clone: Path, *args: str) -> Run:
    return run_bsi(*args, brain=clone, now=NOW, env=racer_env(clone.name), timeout=None)


def test_a_replace_ref_never_reads_a_paused_claim_as_closed(tmp_path: Path) -> None:
    _, (clone,) = make_remote(tmp_path, 1)
    sess = _bsi(clone, "--sync", "claim", "open", "--scope", "proj/", "--slug", "w").out.strip()
    assert _bsi(clone, "gate", "pause", sess, "stop").code == 0
    rel = f"claims/{sess}.yml"
    closed = (clone / rel).read_text(encoding="utf-8").replace("status: paused", "status: closed")
    fake = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=clone, input=closed, capture_output=True,
                          text=True, check=True).stdout.strip()
    real = git(clone, "rev-parse", f"HEAD:{rel}").strip()
    (clone / ".git" / "refs" / "replace").mkdir(parents=True, exist_ok=True)
    (clone / ".git" / "refs" / "replace" / real).write_text(fake + "\n", encoding="utf-8")  # an agent's program
    shutil.rmtree(clone / ".brain")  # the local state is rebuilt from HEAD
    listed = json.loads(_bsi(clone, "--json", "claim", "list").out)["claims"]
    assert [c["status"] for c in listed if c["sess_id"] == sess] == ["paused"]
    second = _bsi(clone, "claim", "open", "--scope", "proj/", "--slug", "x")
    assert second.code == 10, (second.code, second.out, second.err)


def test_bsi_git_reads_no_graft_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "--quiet", str(repo))
    for n in range(3):
        (repo / "f").write_text(f"{n}\n", encoding="utf-8")
        git(repo, "add", "f")
        git(repo, "-c", "user.name=a", "-c", "user.email=a@example.org", "commit", "--quiet", "-m", f"c{n}")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    head, first = git(repo, "rev-parse", "HEAD").strip(), git(repo, "rev-parse", "HEAD~2").strip()
    (repo / ".git" / "info" / "grafts").write_text(f"{head} {first}\n", encoding="utf-8")
    env = {**git_env(), "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    count = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, env=env, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert count == "3", "a graft file changed the history bsi reads"
