"""`--sync`, `--offline`, `bsi sync`, `bsi log`, `bsi verify` against a local bare remote."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bsi import bsi_at, ok, run_bsi
from tests.reliability.harness import git, make_remote, racer_env

NOW = "2026-11-29T10:00:00+00:00"


#: `bsi(clone, *args, now=NOW)`: `bsi --brain CLONE --now NOW ARGS…` as the tester.
bsi = bsi_at(NOW, env=racer_env("tester"), timeout=None)


def test_sync_open_pushes_and_the_other_clone_sees_it(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    opened = bsi(a, "--sync", "claim", "open", "--scope", "agents/", "--slug", "one")
    assert opened.code == 0, opened.err
    sess = opened.out.strip()
    assert sess in git(remote, "log", "--format=%s", "main")
    refused = bsi(b, "--sync", "claim", "open", "--scope", "agents/x.md")
    assert refused.code == 10
    assert sess in refused.err
    # Nothing was written on the loser's side.
    assert not (b / "claims" / "x.yml").exists()
    assert git(b, "status", "--porcelain").strip() == ""


def test_unreachable_remote_exits_69_and_writes_nothing(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    git(a, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    before = sorted(p.name for p in (a / "claims").iterdir())
    head = git(a, "rev-parse", "HEAD")
    res = bsi(a, "--sync", "claim", "open", "--scope", "wiki/")
    assert res.code == 69, res.err
    assert "--offline" in res.err
    assert sorted(p.name for p in (a / "claims").iterdir()) == before
    assert git(a, "rev-parse", "HEAD") == head


def test_offline_change_is_pending_then_pushed_by_sync(tmp_path: Path) -> None:
    remote, (a,) = make_remote(tmp_path, 1)
    good_url = git(a, "remote", "get-url", "origin").strip()
    git(a, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    res = bsi(a, "--offline", "claim", "open", "--scope", "wiki/", "--slug", "off")
    assert res.code == 0, res.err
    sess = res.out.strip()
    state = json.loads((a / ".brain" / "sync.json").read_text())
    assert "pending_since" in state
    git(a, "remote", "set-url", "origin", good_url)
    synced = bsi(a, "--json", "sync")
    assert synced.code == 0, synced.err
    assert json.loads(synced.out)["pushed"] is True
    assert sess in git(remote, "log", "--format=%s", "main")
    assert "pending_since" not in json.loads((a / ".brain" / "sync.json").read_text())


def test_claim_that_lost_while_offline_is_reported_and_failed(tmp_path: Path) -> None:
    _, (a, b) = make_remote(tmp_path, 2)
    good_url = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = bsi(b, "--offline", "claim", "open", "--scope", "wiki/", "--slug", "late")
    assert offline.code == 0
    winner = bsi(a, "--sync", "claim", "open", "--scope", "wiki/page.md", "--slug", "first").out.strip()
    git(b, "remote", "set-url", "origin", good_url)
    synced = bsi(b, "sync")
    assert synced.code == 10
    assert "lost while offline" in synced.err and winner in synced.err
    listed = json.loads(bsi(b, "--json", "claim", "list", "--all").out)["claims"]
    status = {c["sess_id"]: c["status"] for c in listed}
    assert status[winner] == "open"
    assert status[offline.out.strip()] == "failed"


def test_log_names_who_changed_a_claim(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "logme").out.strip()
    assert bsi(a, "claim", "close", sess, "--status", "ok").code == 0
    out = json.loads(bsi(a, "--json", "log", sess).out)["entries"]
    messages = [e["message"] for e in out]
    assert f"bsi: open claim {sess}" in messages and f"bsi: close claim {sess}" in messages
    assert all(e["author"] == "tester <tester@example.org>" for e in out)
    assert bsi(a, "log", "sess-nope").code == 66


def test_verify_reports_drift_with_exit_13(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    sess = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "drift").out.strip()
    (a / "wiki").mkdir()
    (a / "wiki" / "ok.md").write_text("in scope\n")
    git(a, "add", "wiki/ok.md")
    git(a, "commit", "-q", "-m", f"wiki page\n\nBSI-Session: {sess}")
    clean = bsi(a, "--json", "verify", sess)
    assert clean.code == 0, clean.out
    assert json.loads(clean.out)["changed"] == ["wiki/ok.md"]
    (a / "agents").mkdir()
    (a / "agents" / "oops.md").write_text("outside\n")
    git(a, "add", "agents/oops.md")
    git(a, "commit", "-q", "-m", f"{sess}: touch agents")
    (a / "todo.md").write_text("uncommitted\n")
    drift = bsi(a, "--json", "verify", sess)
    assert drift.code == 13
    report = json.loads(drift.out)
    assert report["outside"] == ["agents/oops.md", "todo.md"]
    assert "outside its scope" in drift.err


def test_verify_and_log_match_session_ids_exactly(tmp_path: Path) -> None:
    _, (a,) = make_remote(tmp_path, 1)
    short = bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "pilote").out.strip()
    long = bsi(a, "claim", "open", "--scope", "agents/", "--slug", "pilote-be5").out.strip()
    assert long.startswith(short)
    (a / "agents").mkdir()
    (a / "agents" / "be5.md").write_text("the satellite's work\n")
    git(a, "add", "agents/be5.md")
    git(a, "commit", "-q", "-m", f"{long}: agents page\n\nBSI-Session: {long}")
    verified = bsi(a, "--json", "verify", short)
    assert verified.code == 0, verified.out
    assert json.loads(verified.out)["changed"] == []
    messages = [e["message"] for e in json.loads(bsi(a, "--json", "log", short).out)["entries"]]
    assert messages == [f"bsi: open claim {short}"]
    long_messages = [e["message"] for e in json.loads(bsi(a, "--json", "log", long).out)["entries"]]
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
    ok(run_bsi("init", str(repo / "brain"), now=None, env=racer_env("tester"), timeout=None))
    brain = repo / "brain"
    sess = bsi(brain, "claim", "open", "--scope", "wiki/", "--slug", "sub").out.strip()
    fresh = bsi(brain, "--json", "verify", sess)
    assert fresh.code == 0, fresh.out
    assert json.loads(fresh.out)["outside"] == []
    (brain / "wiki").mkdir()
    (brain / "wiki" / "page.md").write_text("in scope\n")
    git(brain, "add", "wiki/page.md")
    git(brain, "commit", "-q", "-m", f"wiki page\n\nBSI-Session: {sess}")
    (repo / "README.md").write_text("someone else's uncommitted work, outside the brain\n")
    inside = bsi(brain, "--json", "verify", sess)
    assert inside.code == 0, inside.out
    assert json.loads(inside.out)["changed"] == ["wiki/page.md"]
    (repo / "src" / "app.py").write_text("print('changed by the session')\n")
    git(repo, "add", "src/app.py")
    git(repo, "commit", "-q", "-m", f"app change\n\nBSI-Session: {sess}")
    drift = bsi(brain, "--json", "verify", sess)
    assert drift.code == 13
    assert json.loads(drift.out)["outside"] == ["../src/app.py"]
    entries = json.loads(bsi(brain, "--json", "log", sess).out)["entries"]
    opened = next(e for e in entries if e["message"] == f"bsi: open claim {sess}")
    assert f"claims/{sess}.yml" in opened["files"]


def test_one_no_commit_write_never_wedges_later_synced_writes(tmp_path: Path) -> None:
    remote, (a, b) = make_remote(tmp_path, 2)
    (b / "notes").mkdir()
    (b / "notes" / "plan.md").write_text("committed\n")
    git(b, "add", "notes/plan.md")
    git(b, "commit", "-q", "-m", "plan")
    assert bsi(b, "sync").code == 0
    (b / "notes" / "plan.md").write_text("edited, not committed\n")
    draft = bsi(b, "--no-commit", "claim", "open", "--scope", "drafts/", "--slug", "draft")
    assert draft.code == 0, draft.err
    draft_id = draft.out.strip()
    assert "BRAIN-INDEX.md" in git(b, "status", "--porcelain")
    assert bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "from-a").code == 0
    for slug, scope in (("one", "deploy/"), ("two", "todo/")):
        res = bsi(b, "--sync", "claim", "open", "--scope", scope, "--slug", slug)
        assert res.code == 0, res.err
        assert res.out.strip() in git(remote, "log", "--format=%s", "main")
        assert bsi(a, "--sync", "claim", "open", "--scope", f"x-{slug}/").code == 0
    # The unrelated uncommitted files were carried over, untouched.
    assert (b / "notes" / "plan.md").read_text() == "edited, not committed\n"
    assert (b / "claims" / f"{draft_id}.yml").is_file()
    assert bsi(b, "sync").code == 0


def _same_id_on_two_machines(tmp_path: Path, b_scope: str) -> tuple[Path, Path, Path, str]:
    remote, (a, b) = make_remote(tmp_path, 2)
    good_url = git(b, "remote", "get-url", "origin").strip()
    git(b, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = bsi(b, "--offline", "claim", "open", "--scope", b_scope, "--slug", "pilot")
    assert offline.code == 0, offline.err
    synced = bsi(a, "--sync", "claim", "open", "--scope", "wiki/", "--slug", "pilot")
    assert synced.code == 0, synced.err
    assert offline.out.strip() == synced.out.strip()
    git(b, "remote", "set-url", "origin", good_url)
    return remote, a, b, synced.out.strip()


def test_the_same_id_on_two_machines_renames_the_local_claim_at_sync(tmp_path: Path) -> None:
    remote, _a, b, sess = _same_id_on_two_machines(tmp_path, "notes/")
    res = bsi(b, "--json", "sync")
    assert res.code == 0, res.err
    renamed = json.loads(res.out)["renamed"]
    assert [r["old"] for r in renamed] == [sess]
    new = renamed[0]["new"]
    assert new != sess and new.startswith(sess[: len("sess-20261129-1000-")])
    assert f"now {new}" in res.err
    claims = {c["sess_id"]: c for c in json.loads(bsi(b, "--json", "claim", "list").out)["claims"]}
    assert claims[sess]["scope"] == "wiki/" and claims[new]["scope"] == "notes/"
    assert claims[new]["status"] == "open"
    pushed = git(remote, "log", "--format=%s", "main")
    assert f"bsi: open claim {new}" in pushed and f"bsi: open claim {sess}" in pushed
    assert git(b, "status", "--porcelain").strip() == ""
    again = bsi(b, "sync")
    assert again.code == 0, again.err


def test_the_same_id_on_the_same_scope_is_renamed_then_lost(tmp_path: Path) -> None:
    _, _a, b, sess = _same_id_on_two_machines(tmp_path, "wiki/page.md")
    res = bsi(b, "--json", "sync")
    assert res.code == 10, res.err
    report = json.loads(res.out)
    new = report["renamed"][0]["new"]
    assert [item["sess_id"] for item in report["lost"]] == [new]
    listed = json.loads(bsi(b, "--json", "claim", "list", "--all").out)["claims"]
    status = {c["sess_id"]: c["status"] for c in listed}
    assert status == {sess: "open", new: "failed"}
    assert bsi(b, "sync").code == 0


def test_verify_counts_the_instances_commits_between_the_open_and_the_close_commits(tmp_path: Path) -> None:
    """"Made by its instance between open and close": a commit the instance made after the claim's open commit and
    before its close commit is the session's, whatever the clocks say (here `--now` sets the claim's times)."""
    _, (a,) = make_remote(tmp_path, 1)

    def commit_as_instance(path: str, message: str) -> None:
        (a / path).parent.mkdir(parents=True, exist_ok=True)
        (a / path).write_text(message + "\n")
        git(a, "add", path)
        git(a, "-c", "user.name=prod@desk", "commit", "-q", "-m", message)

    commit_as_instance("early/before.md", "before the open")
    sess = ok(bsi(a, "claim", "open", "--scope", "wiki/", "--slug", "inst", "--instance", "prod@desk")).strip()
    commit_as_instance("lib/c.py", "during the claim")
    open_report = bsi(a, "--json", "verify", sess)
    assert open_report.code == 13, open_report.out
    assert json.loads(open_report.out)["outside"] == ["lib/c.py"]
    ok(bsi(a, "claim", "close", sess, "--status", "ok", now="2026-11-29T10:30:00+00:00"))
    commit_as_instance("late/after.md", "after the close")
    closed_report = bsi(a, "--json", "verify", sess, now="2026-11-29T11:00:00+00:00")
    assert closed_report.code == 13, closed_report.out
    assert json.loads(closed_report.out)["outside"] == ["lib/c.py"]


def test_verify_of_a_claim_whose_hand_written_instance_holds_a_nul(brain: Path) -> None:
    # A claim file edited by hand names an instance no git argument can carry: verify still answers (SPEC 13:
    # bad text in a file is data, never an internal error), by the commits that name the session.
    sess = ok(run_bsi("claim", "open", "--scope", "docs/", brain=brain)).strip()
    path = brain / "claims" / f"{sess}.yml"
    text = path.read_text(encoding="utf-8")
    path.write_text("\n".join('instance: "x\\0y@vm"' if line.startswith("instance:") else line
                              for line in text.splitlines()) + "\n", encoding="utf-8")
    run = run_bsi("verify", sess, brain=brain)
    assert run.code == 0, run.err
