"""kill -9 during `bsi hooks install` and `bsi mcp install`: each settings file whole, the next install completes.

`hooks install` writes `.claude/settings.json` and remembers on this clone what its fence added
(`.brain/sandbox-fence.json`, so `hooks uninstall` takes out exactly that); `mcp install` writes
`.mcp.json`. Each case kills the install before or after one of its file writes (the child counts its
atomic writes and kills itself there), or at a random instant, then runs the install again and checks:

- each file is valid JSON, the old or the new text, never empty or half-merged;
- the second install exits 0 and leaves what an uninterrupted install leaves;
- an uninstall then gives back what an uninterrupted install and uninstall give back (the user's own
  entries kept, ours removed): what the fence added is not forgotten by the kill.

CI profile: every file write, before and after, and one random instant each. `--long-profile`: 40 random instants.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from tests.bsi import BSI, Run, bsi_command, clean_env, ok, run_bsi

from . import forked

ENV = clean_env(identity="killer")
SETTINGS = Path(".claude") / "settings.json"
#: The user's own settings: a hook of theirs, a permission, and one fence entry they set before any install.
USER: dict[str, Any] = {
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]},
    "sandbox": {"filesystem": {"denyWrite": ["./secrets", "./claims"]}},
}
USER_MCP: dict[str, Any] = {"mcpServers": {"other": {"type": "stdio", "command": "other", "args": []}}}
COMMANDS: dict[str, tuple[str, ...]] = {"hooks": ("hooks", "install"), "mcp": ("mcp", "install")}
FILES = (SETTINGS, Path(".mcp.json"), Path(".brain") / "sandbox-fence.json")


def _seed(root: Path) -> None:
    (root / SETTINGS).parent.mkdir(parents=True, exist_ok=True)
    (root / SETTINGS).write_text(json.dumps(USER, indent=2) + "\n", encoding="utf-8")
    (root / ".mcp.json").write_text(json.dumps(USER_MCP, indent=2) + "\n", encoding="utf-8")


def _texts(root: Path) -> dict[str, str | None]:
    return {str(rel): (root / rel).read_text(encoding="utf-8") if (root / rel).exists() else None for rel in FILES}


def _killed_at_write(argv: list[str], n: int, after: bool) -> int | None:
    """Child: run `bsi ARGV`, killing itself before (or after) its n-th atomic file write."""
    from brain_tui.cli.main import main
    from brain_tui.core.records import yamlio

    real = yamlio.atomic_write_text
    count = [0]

    def write(path: str | os.PathLike[str], text: str) -> None:
        count[0] += 1
        if count[0] == n and not after:
            os.kill(os.getpid(), signal.SIGKILL)
        real(path, text)
        if count[0] == n and after:
            os.kill(os.getpid(), signal.SIGKILL)

    yamlio.atomic_write_text = write  # type: ignore[assignment]
    return main(argv)


def _argv(root: Path, args: tuple[str, ...]) -> list[str]:
    return bsi_command(*args, brain=root)[len(BSI):]


def _check(root: Path, label: str, args: tuple[str, ...], old: dict[str, str | None],
           new: dict[str, str | None], removed: dict[str, str | None]) -> None:
    for rel, text in _texts(root).items():
        if text is not None and rel != str(FILES[2]):
            json.loads(text)  # whole
            assert text in (old[rel], new[rel]), f"{label}: {rel} is neither the old nor the new text:\n{text}"
    ok(run_bsi(*args, brain=root, env=ENV))
    assert _texts(root) == new, f"{label}: the second install did not complete what the first began"
    strays = [p.name for p in (root / ".claude").iterdir() if p.name != "settings.json"]
    assert not strays, f"{label}: stray files beside the settings after the second install: {strays}"
    if args[0] == "hooks":
        ok(run_bsi("hooks", "uninstall", brain=root, env=ENV))
        assert _texts(root)[str(SETTINGS)] == removed[str(SETTINGS)], \
            f"{label}: uninstall after the recovery took out other entries than after a whole install"


def _random_kill(root: Path, args: tuple[str, ...], delay: float) -> Run:
    child = forked.start(_argv(root, args), env=ENV, cwd=root)
    time.sleep(delay)
    child.kill()
    return child.wait()


def test_kill9_during_an_install_leaves_whole_settings(tmp_path: Path, brain: Path, long_profile: bool) -> None:
    rng = random.Random(5)
    kills = cases = 0
    for kind, args in COMMANDS.items():
        template = tmp_path / f"{kind}-template"
        shutil.copytree(brain, template, symlinks=True)
        _seed(template)
        probe = tmp_path / f"{kind}-probe"
        shutil.copytree(template, probe, symlinks=True)
        old = _texts(probe)
        ok(run_bsi(*args, brain=probe, env=ENV))
        new = _texts(probe)
        if kind == "hooks":
            ok(run_bsi("hooks", "uninstall", brain=probe, env=ENV))
        removed = _texts(probe)
        writes = sum(1 for rel in FILES if old[str(rel)] != new[str(rel)])
        plan = [(n, after) for n in range(1, writes + 1) for after in (False, True)]
        for n, after in plan:
            label = f"{kind} kill {'after' if after else 'before'} write {n}"
            root = tmp_path / f"{kind}-{n}-{after}"
            shutil.copytree(template, root, symlinks=True)
            argv = _argv(root, args)
            run = forked.run_forked(lambda a=argv, k=n, z=after: _killed_at_write(a, k, z), env=ENV,
                                    cwd=root).wait()
            assert run.code == -9, f"{label}: {run}"
            kills += 1
            _check(root, label, args, old, new, removed)
            cases += 1
        for i in range(40 if long_profile else 1):
            root = tmp_path / f"{kind}-r{i}"
            shutil.copytree(template, root, symlinks=True)
            run = _random_kill(root, args, rng.uniform(0.0, 0.25))
            kills += run.code == -9
            _check(root, f"{kind} random {i}", args, old, new, removed)
            cases += 1
    print(f"agent settings kill -9: {cases} cases, {kills} kills, every file whole, every second install complete")
