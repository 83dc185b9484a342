"""bsi's own git runs no program the repository names (SPEC 21): `.git` is writable from an agent's sandboxed shell
(satellites commit), and bsi runs outside that sandbox (the MCP server, the hooks, the pilot's cockpit), so a hook,
an fsmonitor or a filter planted there would run with the power to rewrite the claim files."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.paths.scope import parse_scope
from brain_tui.core.rules.claims import OpenRequest
from brain_tui.core.sync import gitops
from tests.bsi import NOW, git, ok, run_bsi
from tests.reliability.harness import make_remote, racer_env


def _plant(brain: Path, marks: Path) -> None:
    """Every way a repository names a program git runs on a commit, a status or a diff: each leaves a mark."""
    hooks = brain / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("reference-transaction", "post-commit", "post-index-change"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marks / name}\n")
        (hooks / name).chmod(0o755)
    git(brain, "config", "core.fsmonitor", f"touch {marks / 'fsmonitor'}; true")
    git(brain, "config", "filter.planted.clean", f"touch {marks / 'clean'}; cat")
    git(brain, "config", "filter.planted.smudge", f"touch {marks / 'smudge'}; cat")
    git(brain, "config", "diff.planted.textconv", f"touch {marks / 'textconv'}; cat")
    (brain / ".git" / "info").mkdir(exist_ok=True)
    (brain / ".git" / "info" / "attributes").write_text("* filter=planted diff=planted\n")


def test_a_write_a_status_and_a_gate_review_run_no_program_of_the_repository(brain: Path, tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    _plant(brain, marks)
    b = Brain(brain, now=NOW, instance="t@test")
    opened = b.open_claim(OpenRequest(parse_scope("src/", b.root), timedelta(hours=1), "t@test", story="s"))
    sess = opened
    (brain / "src").mkdir()
    (brain / "src" / "a.py").write_text("x = 1\n")
    ok(run_bsi("env", "--json", brain=brain))
    run_bsi("gate", "show", sess, brain=brain)
    assert sorted(p.name for p in marks.iterdir()) == []
    committed = git(brain, "show", f"HEAD:claims/{sess}.yml")
    assert committed == (brain / "claims" / f"{sess}.yml").read_text(encoding="utf-8")  # no filter on the way


def test_only_the_repositorys_own_config_is_neutralised(brain: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # the user's global config is theirs (an agent cannot write it): its drivers (git-lfs) keep working for bsi's git
    user = tmp_path / "gitconfig"
    user.write_text('[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n'
                    '[credential]\n\thelper = store\n', encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user))
    git(brain, "config", "filter.planted.process", "touch x")
    git(brain, "config", "core.sshCommand", "touch x; ssh")
    git(brain, "config", "credential.https://example.org.helper", "!touch x")
    git(brain, "config", "gpg.ssh.program", "touch x")
    assert gitops._drivers(brain) == [("core.sshcommand", "ssh"), ("credential.https://example.org.helper", ""),
                                      ("filter.planted.process", ""), ("gpg.ssh.program", "")]


def test_a_sync_runs_no_transport_program_of_the_repository(tmp_path: Path) -> None:
    remote, (clone,) = make_remote(tmp_path, 1)
    marks = tmp_path / "marks"
    marks.mkdir()
    # programs a local remote's transport runs: named by the repository's config, run by git's fetch and push
    git(clone, "config", "remote.origin.uploadpack", f"touch {marks / 'upload'}; git-upload-pack")
    git(clone, "config", "remote.origin.receivepack", f"touch {marks / 'receive'}; git-receive-pack")
    env = racer_env("tester")
    opened = run_bsi("--sync", "claim", "open", "--scope", "wiki/", "--slug", "s", brain=clone, env=env)
    assert opened.code == 0, opened.err
    assert sorted(p.name for p in marks.iterdir()) == []
    assert opened.out.strip() in git(remote, "log", "--format=%s", "main")


@pytest.mark.parametrize("how", ["include", "worktree"])
def test_a_driver_added_beside_the_config_file_is_seen_by_a_long_lived_process(brain: Path, how: str) -> None:
    # `bsi mcp` lives as long as the agent: the answer kept for `.git/config` must not hide a driver another file adds
    other = brain / ".git" / ("extra.cfg" if how == "include" else "config.worktree")
    other.write_text("", encoding="utf-8")
    if how == "include":
        git(brain, "config", "include.path", "extra.cfg")
    else:
        git(brain, "config", "extensions.worktreeConfig", "true")
    assert gitops._drivers(brain) == []
    other.write_text('[filter "planted"]\n\tclean = touch x\n', encoding="utf-8")
    assert gitops._drivers(brain) == [("filter.planted.clean", "")]


def test_a_relative_folder_on_path_gives_bsi_no_git_of_the_brains(brain: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """bsi runs git in the brain's folder: a relative entry of PATH (`bin`, `.`, an empty one) is a folder of the
    brain there, where an agent may write a `git` of its own, which bsi would run outside the agent's sandbox."""
    mark = tmp_path / "ran"
    for folder in ("bin", "."):
        (brain / folder).mkdir(exist_ok=True)
        fake = brain / folder / "git"
        fake.write_text(f"#!/bin/sh\ntouch {mark}\nexit 1\n")
        fake.chmod(0o755)
    import os

    monkeypatch.setenv("PATH", f"bin:.::{os.environ['PATH']}")
    assert gitops.run_git(brain, "rev-parse", "HEAD").stdout.strip()
    assert not mark.exists()
    assert os.pathsep.join(("bin", ".")) not in gitops.git_env()["PATH"]


@pytest.mark.parametrize("path", ["bin:.", ""])
def test_a_path_of_relative_folders_only_leaves_no_empty_path_behind(brain: Path, tmp_path: Path, path: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty PATH is not "no folder": the program is looked for as a relative path, in the brain's folder. With
    nothing absolute left, bsi's git is looked for where the OS looks without a PATH (`os.defpath`)."""
    import os

    mark = tmp_path / "ran"
    fake = brain / "git"
    fake.write_text(f"#!/bin/sh\n: > {mark}\nexit 1\n")  # no PATH: a builtin
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", path)
    gitops.run_git(brain, "rev-parse", "HEAD", check=False)
    assert not mark.exists()
    assert gitops.git_env()["PATH"] == os.defpath


def test_a_reading_of_the_repositorys_programs_that_times_out_runs_no_command(
        brain: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When git cannot say in time which programs the repository names, the command is not run with them unread
    (it was: the reading's timeout gave "none" and the command ran with the planted filter live); and the reading
    takes the caller's limit, not its own 20 s."""
    import subprocess

    marks = tmp_path / "marks"
    marks.mkdir()
    _plant(brain, marks)
    gitops._drivers_seen.clear()
    real = gitops._run
    asked: list[float] = []

    def slow_config(argv: list[str], cwd: str | Path, env: dict[str, str], timeout: float,
                    input_text: str | None = None) -> subprocess.CompletedProcess[str]:
        if argv[1:3] == ["config", "--show-scope"]:
            asked.append(timeout)
            raise subprocess.TimeoutExpired(argv, timeout)
        return real(argv, cwd, env, timeout, input_text)

    monkeypatch.setattr(gitops, "_run", slow_config)
    (brain / "note.md").write_text("x\n")
    with pytest.raises(gitops.GitTimeout):
        gitops.run_git(brain, "add", "note.md", timeout=3.0)
    assert asked == [3.0]
    assert not any(marks.iterdir()), sorted(p.name for p in marks.iterdir())
