"""`--sync`, `--offline`, `bsi sync`, `bsi log`, `bsi verify` against a local bare remote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.reliability.harness import BSI, env_for, git, make_remote

NOW = "2026-11-29T10:00:00+00:00"


def bsi(clone: Path, *args: str, now: str = NOW) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BSI, "--brain", str(clone), "--now", now, *args], capture_output=True, text=True,
                          env=env_for("tester"))


def test_sync_open_pushes_and_the_other_clone_sees_it(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    opened = bsi(a, "--sync", "claim", "open", "--scope", "agents/", "--slug", "one")
    assert opened.returncode == 0, opened.stderr
    sess = opened.stdout.strip()
    assert sess in git(remote, "log", "--format=%s", "main")
    refused = bsi(b, "--sync", "claim", "open", "--scope", "agents/x.md")
    assert refused.returncode == 10
    assert sess in refused.stderr
    # Nothing was written on the loser's side.
    assert not (b / "claims" / "x.yml").exists()
    assert git(b, "status", "--porcelain").strip() == ""


def test_unreachable_remote_exits_69_and_writes_nothing(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    git(a, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    before = sorted(p.name for p in (a / "claims").iterdir())
    head = git(a, "rev-parse", "HEAD")
    res = bsi(a, "--sync", "claim", "open", "--scope", "wiki/")
    assert res.returncode == 69, res.stderr
    assert "--offline" in res.stderr
    assert sorted(p.name for p in (a / "claims").iterdir()) == before
    assert git(a, "rev-parse", "HEAD") == head


def test_offline_change_is_pending_then_pushed_by_sync(tmp_path: Path) -> None:
    remote, (a,) = make_remote(tmp_path, 1)
    good_url = git(a, "remote", "get-url", "origin").strip()
    git(a, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    res = bsi(a, "--offline", "claim", "open", "--scope", "wiki/", "--slug", "off")
    assert res.returncode == 0, res.stderr
    sess = res.stdout.strip()
    state = json.loads((a / ".brain" / "sync.json").read_text())
    assert "pending_since" in state
    git(a, "remote", "set-url", "origin", good_url)
    synced = bsi(a, "--json", "sync")
    assert synced.returncode == 0, synced.stderr
    assert json.loads(synced.stdout)["pushed"] is True
    assert sess in git(remote, "log", "--format=%s", "main")
    assert "pending_since" not in json.loads((a / ".brain" / "sync.json").read_text())


def test_claim_that_lost_while_offline_is_reported_and_failed(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    good_url = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = bsi(b, "--offline", "claim", "open", "--scope", "wiki/", "--slug", "late")
    assert offline.returncode == 0
    winner = bsi(a, "--sync", "claim", "open", "--scope", "wiki/page.md", "--slug", "first").stdout.strip()
    git(b, "remote", "set-url", "origin", good_url)
    synced = bsi(b, "sync")
    assert synced.returncode == 10
    assert "lost while offline" in synced.stderr and winner in synced.stderr
    listed = json.loads(bsi(b, "--json", "claim", "list", "--all").stdout)["claims"]
    status = {c["sess_id"]: c["status"] for c in listed}
    assert status[winner] == "open"
    assert status[offline.stdout.strip()] == "failed"


def test_log_names_who_changed_a_claim(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "logme").stdout.strip()
    assert bsi(a, "claim", "close", sess, "--status", "ok").returncode == 0
    out = json.loads(bsi(a, "--json", "log", sess).stdout)["entries"]
    messages = [e["message"] for e in out]
    assert f"bsi: open claim {sess}" in messages and f"bsi: close claim {sess}" in messages
    assert all(e["author"] == "tester <tester@example.org>" for e in out)
    assert bsi(a, "log", "sess-nope").returncode == 66


def test_verify_reports_drift_with_exit_13(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "drift").stdout.strip()
    (a / "wiki").mkdir()
    (a / "wiki" / "ok.md").write_text("in scope\n")
    git(a, "add", "wiki/ok.md")
    git(a, "commit", "-q", "-m", f"wiki page\n\nBSI-Session: {sess}")
    clean = bsi(a, "--json", "verify", sess)
    assert clean.returncode == 0, clean.stdout
    assert json.loads(clean.stdout)["changed"] == ["wiki/ok.md"]
    (a / "agents").mkdir()
    (a / "agents" / "oops.md").write_text("outside\n")
    git(a, "add", "agents/oops.md")
    git(a, "commit", "-q", "-m", f"{sess}: touch agents")
    (a / "todo.md").write_text("uncommitted\n")
    drift = bsi(a, "--json", "verify", sess)
    assert drift.returncode == 13
    report = json.loads(drift.stdout)
    assert report["outside"] == ["agents/oops.md", "todo.md"]
    assert "outside its scope" in drift.stderr


def test_verify_and_log_match_session_ids_exactly(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    short = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "pilote").stdout.strip()
    long = bsi(a, "claim", "open", "--scope", "agents/", "--slug", "pilote-be5").stdout.strip()
    assert long.startswith(short)
    (a / "agents").mkdir()
    (a / "agents" / "be5.md").write_text("the satellite's work\n")
    git(a, "add", "agents/be5.md")
    git(a, "commit", "-q", "-m", f"{long}: agents page\n\nBSI-Session: {long}")
    verified = bsi(a, "--json", "verify", short)
    assert verified.returncode == 0, verified.stdout
    assert json.loads(verified.stdout)["changed"] == []
    messages = [e["message"] for e in json.loads(bsi(a, "--json", "log", short).stdout)["entries"]]
    assert messages == [f"bsi: open claim {short}"]
    long_messages = [e["message"] for e in json.loads(bsi(a, "--json", "log", long).stdout)["entries"]]
    assert f"{long}: agents page" in long_messages and f"bsi: open claim {short}" not in long_messages


def test_a_brain_in_a_subfolder_counts_paths_from_the_brain_root(tmp_path: Path) -> None:
    repo = tmp_path / "big"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "tester")
    git(repo, "config", "user.email", "tester@example.org")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('app')\n")
    git(repo, "add", "src/app.py")
    git(repo, "commit", "-q", "-m", "the app")
    subprocess.run([*BSI, "init", str(repo / "brain")], check=True, capture_output=True, env=env_for("tester"))
    brain = repo / "brain"
    sess = bsi(brain, "claim", "open", "--scope", "wiki/", "--slug", "sub").stdout.strip()
    fresh = bsi(brain, "--json", "verify", sess)
    assert fresh.returncode == 0, fresh.stdout
    assert json.loads(fresh.stdout)["outside"] == []
    (brain / "wiki").mkdir()
    (brain / "wiki" / "page.md").write_text("in scope\n")
    git(brain, "add", "wiki/page.md")
    git(brain, "commit", "-q", "-m", f"wiki page\n\nBSI-Session: {sess}")
    (repo / "README.md").write_text("someone else's uncommitted work, outside the brain\n")
    inside = bsi(brain, "--json", "verify", sess)
    assert inside.returncode == 0, inside.stdout
    assert json.loads(inside.stdout)["changed"] == ["wiki/page.md"]
    (repo / "src" / "app.py").write_text("print('changed by the session')\n")
    git(repo, "add", "src/app.py")
    git(repo, "commit", "-q", "-m", f"app change\n\nBSI-Session: {sess}")
    drift = bsi(brain, "--json", "verify", sess)
    assert drift.returncode == 13
    assert json.loads(drift.stdout)["outside"] == ["../src/app.py"]
    entries = json.loads(bsi(brain, "--json", "log", sess).stdout)["entries"]
    opened = next(e for e in entries if e["message"] == f"bsi: open claim {sess}")
    assert f"claims/{sess}.yml" in opened["files"]


def test_one_no_commit_write_never_wedges_later_synced_writes(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    (b / "notes").mkdir()
    (b / "notes" / "plan.md").write_text("committed\n")
    git(b, "add", "notes/plan.md")
    git(b, "commit", "-q", "-m", "plan")
    assert bsi(b, "sync").returncode == 0
    (b / "notes" / "plan.md").write_text("edited, not committed\n")
    draft = bsi(b, "--no-commit", "claim", "open", "--scope", "drafts/", "--slug", "draft")
    assert draft.returncode == 0, draft.stderr
    draft_id = draft.stdout.strip()
    assert "BRAIN-INDEX.md" in git(b, "status", "--porcelain")
    assert bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "from-a").returncode == 0
    for slug, scope in (("one", "deploy/"), ("two", "todo/")):
        res = bsi(b, "--sync", "claim", "open", "--scope", scope, "--slug", slug)
        assert res.returncode == 0, res.stderr
        assert res.stdout.strip() in git(remote, "log", "--format=%s", "main")
        assert bsi(a, "--sync", "claim", "open", "--scope", f"x-{slug}/").returncode == 0
    # The unrelated uncommitted files were carried over, untouched.
    assert (b / "notes" / "plan.md").read_text() == "edited, not committed\n"
    assert (b / "claims" / f"{draft_id}.yml").is_file()
    assert bsi(b, "sync").returncode == 0


def _same_id_on_two_machines(tmp_path: Path, b_scope: str) -> tuple[Path, Path, Path, str]:
    remote, (a, b) = make_remote(tmp_path, 2)
    good_url = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = bsi(b, "--offline", "claim", "open", "--scope", b_scope, "--slug", "pilot")
    assert offline.returncode == 0, offline.stderr
    synced = bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "pilot")
    assert synced.returncode == 0, synced.stderr
    assert offline.stdout.strip() == synced.stdout.strip()
    git(b, "remote", "set-url", "origin", good_url)
    return remote, a, b, synced.stdout.strip()


def test_the_same_id_on_two_machines_renames_the_local_claim_at_sync(tmp_path: Path) -> None:
    remote, _a, b, sess = _same_id_on_two_machines(tmp_path, "notes/")
    res = bsi(b, "--json", "sync")
    assert res.returncode == 0, res.stderr
    renamed = json.loads(res.stdout)["renamed"]
    assert [r["old"] for r in renamed] == [sess]
    new = renamed[0]["new"]
    assert new != sess and new.startswith(sess[: len("sess-20261129-1000-")])
    assert f"now {new}" in res.stderr
    claims = {c["sess_id"]: c for c in json.loads(bsi(b, "--json", "claim", "list").stdout)["claims"]}
    assert claims[sess]["scope"] == "wiki/" and claims[new]["scope"] == "notes/"
    assert claims[new]["status"] == "open"
    pushed = git(remote, "log", "--format=%s", "main")
    assert f"bsi: open claim {new}" in pushed and f"bsi: open claim {sess}" in pushed
    assert git(b, "status", "--porcelain").strip() == ""
    again = bsi(b, "sync")
    assert again.returncode == 0, again.stderr


def test_the_same_id_on_the_same_scope_is_renamed_then_lost(tmp_path: Path) -> None:
    _, _a, b, sess = _same_id_on_two_machines(tmp_path, "wiki/page.md")
    res = bsi(b, "--json", "sync")
    assert res.returncode == 10, res.stderr
    report = json.loads(res.stdout)
    new = report["renamed"][0]["new"]
    assert [item["sess_id"] for item in report["lost"]] == [new]
    listed = json.loads(bsi(b, "--json", "claim", "list", "--all").stdout)["claims"]
    status = {c["sess_id"]: c["status"] for c in listed}
    assert status == {sess: "open", new: "failed"}
    assert bsi(b, "sync").returncode == 0
