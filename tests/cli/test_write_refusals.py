"""A full disk or a read-only brain is the system's refusal, not a bug: exit 74 / 73, one line naming the path,
nothing left half-written (README's exit-code table; sysexits EX_IOERR and EX_CANTCREAT)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from brain_tui.cli.main import main as bsi_main
from brain_tui.core.records import index_file
from tests.bsi import NOW, bsi_command, clean_env, ok, run_bsi
from tests.conftest import tree_bytes


def _no_room(path: str | os.PathLike[str], text: str, errors: str = "strict") -> None:
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


def test_a_full_disk_exits_74_names_the_path_and_leaves_nothing_half_written(
        brain: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree_bytes(brain)
    # the claim file is written, then BRAIN-INDEX.md finds no room: the claim file must go again
    monkeypatch.setattr(index_file, "atomic_write_text", _no_room)
    code = bsi_main(["--brain", str(brain), "--now", NOW, "--json", "claim", "open", "--scope", "src/",
                          "--story", "x"])
    out, err = capsys.readouterr()
    assert code == 74
    assert err.count("\n") == 1 and "internal error" not in err and "Traceback" not in err
    assert "BRAIN-INDEX.md" in err and "no space left" in err
    assert json.loads(out)["exit"] == 74
    assert tree_bytes(brain) == before


def test_a_denied_write_exits_73(brain: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    def denied(path: str | os.PathLike[str], text: str, errors: str = "strict") -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(index_file, "atomic_write_text", denied)
    code = bsi_main(["--brain", str(brain), "--now", NOW, "claim", "open", "--scope", "src/", "--story", "x"])
    err = capsys.readouterr().err
    assert code == 73 and err.startswith("bsi: cannot write ") and "permission denied" in err
    assert "internal error" not in err


def test_any_other_os_error_is_still_a_bug(brain: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    def broken(path: str | os.PathLike[str], text: str, errors: str = "strict") -> None:
        raise OSError(errno.EIO, "Input/output error", str(path))

    monkeypatch.delenv("BSI_DEBUG", raising=False)
    monkeypatch.setattr(index_file, "atomic_write_text", broken)
    code = bsi_main(["--brain", str(brain), "--now", NOW, "claim", "open", "--scope", "src/", "--story", "x"])
    assert code == 70 and "internal error" in capsys.readouterr().err


def _read_only_mount_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.skipif(not _read_only_mount_works(), reason="needs unshare -m to mount a read-only view")
def test_a_read_only_brain_is_a_plain_refusal_for_every_write(brain: Path, tmp_path: Path) -> None:
    """What an agent's sandboxed shell sees on a read-only protocol folder: 73 and one line; reads still work."""
    sess = ok(run_bsi("claim", "open", "--scope", "src/", "--story", "x", brain=brain))
    view = tmp_path / "ro"
    view.mkdir()
    script = ('mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && cd / && '
              'for cmd in "claim open --scope docs/ --story y" "watchdog" "--json signal send --to x --type INFO hi"; '
              'do "$@" $cmd; echo "rc=$?"; done; "$@" claim list; echo "rc=$?"')
    done = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(brain), str(view),
                           *bsi_command(brain=view, now=NOW)], capture_output=True, text=True,
                          env=clean_env(), check=False, timeout=120)
    codes = [line for line in done.stdout.splitlines() if line.startswith("rc=")]
    assert codes == ["rc=73", "rc=73", "rc=73", "rc=0"], done
    refusals = done.stderr.splitlines()
    assert len(refusals) == 3, done.stderr
    for line in refusals:
        assert line.startswith(f"bsi: cannot write {view}") and "read-only" in line, line
    assert sess in done.stdout


def test_an_agent_refused_by_its_sandbox_is_pointed_to_the_mcp_tools(
        brain: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def read_only(path: str | os.PathLike[str], text: str, errors: str = "strict") -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(index_file, "atomic_write_text", read_only)
    monkeypatch.setenv("CLAUDECODE", "1")  # the agent's Bash, inside the sandbox that `bsi hooks install` writes
    code = bsi_main(["--brain", str(brain), "--now", NOW, "claim", "open", "--scope", "src/", "--story", "x"])
    err = capsys.readouterr().err
    assert code == 73 and err.count("\n") == 1 and "internal error" not in err
    assert "read-only" in err and "bsi MCP tools" in err


@pytest.mark.parametrize("step", ["update-index", "write-tree", "commit-tree"])
def test_a_full_disk_inside_git_commit_exits_74_and_rolls_the_files_back(
        brain: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], step: str) -> None:
    from brain_tui.core.sync import gitops

    real_run = gitops._run

    def full_on_commit(cmd: list[str], *args: object, **kwargs: object) -> subprocess.CompletedProcess[str]:
        if step in cmd:
            return subprocess.CompletedProcess(cmd, 128, "", "error: unable to write new index file: "
                                               "No space left on device\nfatal: cannot write the tree\n")
        return real_run(cmd, *args, **kwargs)  # type: ignore[arg-type]

    before = tree_bytes(brain)
    monkeypatch.setattr(gitops, "_run", full_on_commit)
    code = bsi_main(["--brain", str(brain), "--now", NOW, "claim", "open", "--scope", "src/", "--story", "x"])
    err = capsys.readouterr().err
    assert code == 74, err
    assert err.count("\n") == 1 and "no space left on the device" in err and f"git {step}" in err
    assert tree_bytes(brain) == before
    status = subprocess.run(["git", "status", "--porcelain"], cwd=brain, capture_output=True, text=True, check=True)
    assert status.stdout == ""


def test_init_is_all_or_nothing_when_its_commit_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from brain_tui.core.sync import gitops

    def no_room(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", "BRAIN-INDEX.md")

    target = tmp_path / "new-brain"
    target.mkdir()
    (target / ".gitignore").write_text("node_modules/\n")  # a file of the user's: it must come back as it was
    monkeypatch.setattr(gitops, "commit_paths", no_room)
    code = bsi_main(["init", str(target)])
    assert code == 74, capsys.readouterr().err
    assert (target / ".gitignore").read_text() == "node_modules/\n"
    left = sorted(str(p.relative_to(target)) for p in target.rglob("*")
                  if p.is_file() and p.relative_to(target).parts[0] not in (".git", ".brain"))
    assert left == [".gitignore"], left
    assert not (target / "BRAIN-INDEX.md").exists()
    monkeypatch.undo()
    assert bsi_main(["init", str(target)]) == 0  # and it can simply be run again
    assert (target / "BRAIN-INDEX.md").is_file() and ".brain/" in (target / ".gitignore").read_text()


@pytest.mark.skipif(not _read_only_mount_works(), reason="needs unshare -m to mount a read-only view")
def test_a_write_refused_by_a_read_only_claims_folder_leaves_no_journal_behind(brain: Path) -> None:
    """The agent's sandbox makes `claims/` alone read-only: a refused `claim open` (73) must be settled at once, so
    the next write elsewhere (a signal) is not refused in its name. Rolling back the claim file it never created
    must not fail on the read-only folder (unlinking a missing file there is EROFS, not ENOENT)."""
    claims = brain / "claims"
    script = ('mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && cd / && '
              '"$@" claim open --scope docs/ --story y; echo "rc=$?"; '
              '"$@" signal send --to human:pilot --type INFO hi; echo "rc=$?"')
    done = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(claims),
                           *bsi_command(brain=brain, now=NOW)], capture_output=True, text=True,
                          env=clean_env(), check=False, timeout=120)
    codes = [line for line in done.stdout.splitlines() if line.startswith("rc=")]
    assert codes == ["rc=73", "rc=0"], done
    refusal, = done.stderr.splitlines()
    assert refusal.startswith(f"bsi: cannot write {claims}/sess-") and "read-only" in refusal, refusal
    assert not (brain / ".brain" / "journal").exists()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=brain, capture_output=True, text=True,
                          check=True).stdout == ""
