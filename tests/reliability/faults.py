"""A fault-injecting `git` for the reliability harness: kill the calling `bsi` (kill -9) or fail one git step.

The wrapper sits first on PATH for the `bsi` under test only. It counts the git
commands that `bsi` runs (not the ones git runs itself) and, at the chosen one,
either `kill -9`s its caller before or after the real git ran, or makes that
step fail as a full disk or a broken repository would. Nothing in the product
knows about it.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from tests.bsi import BSI, Run, bsi_command

from . import forked

_WRAPPER = r"""#!/bin/sh
if [ -n "$BSI_FAULT_INNER" ]; then exec "$BSI_REAL_GIT" "$@"; fi
export BSI_FAULT_INNER=1
sub=""; skip=0
for a in "$@"; do
  if [ "$skip" = 1 ]; then skip=0; continue; fi
  case "$a" in -c|-C) skip=1;; -*) ;; *) sub=$a; break;; esac
done
n=$(( $(cat "$BSI_FAULT_DIR/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$BSI_FAULT_DIR/count"
echo "$n $sub" >> "$BSI_FAULT_DIR/steps"
hit=0
if [ "$n" = "${BSI_FAULT_AT:-x}" ] || [ "$sub" = "${BSI_FAULT_ON:-x}" ]; then hit=1; fi
if [ "$hit" = 1 ] && [ "$BSI_FAULT_DO" = fail ]; then
  echo "fatal: unable to write new index file: No space left on device" >&2; exit 128
fi
if [ "$hit" = 1 ] && [ "$BSI_FAULT_DO" = kill-before ]; then kill -9 "$PPID"; exit 137; fi
"$BSI_REAL_GIT" "$@"; rc=$?
if [ "$hit" = 1 ] && [ "$BSI_FAULT_DO" = kill-after ]; then kill -9 "$PPID"; fi
exit $rc
"""


@dataclass(frozen=True)
class Faults:
    """The wrapper's folder; `env()` gives the environment of one faulty `bsi` call."""

    folder: Path

    @classmethod
    def install(cls, tmp: Path) -> Faults:
        """Write the wrapper under `tmp/fault-bin/git`."""
        real = shutil.which("git")
        assert real, "git is needed"
        folder = tmp / "fault-bin"
        folder.mkdir(exist_ok=True)
        wrapper = folder / "git"
        wrapper.write_text(_WRAPPER, encoding="utf-8")
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
        (folder / "real").write_text(real, encoding="utf-8")
        return cls(folder)

    def env(self, base: dict[str, str], *, at: int | None = None, on: str | None = None,
            do: str = "none") -> dict[str, str]:
        """`base` with the wrapper first on PATH; the fault at step `at` or at every `on` subcommand."""
        for name in ("count", "steps"):
            (self.folder / name).unlink(missing_ok=True)
        env = {**base, "PATH": f"{self.folder}{os.pathsep}{base.get('PATH', os.environ.get('PATH', ''))}",
               "BSI_REAL_GIT": (self.folder / "real").read_text(encoding="utf-8"),
               "BSI_FAULT_DIR": str(self.folder), "BSI_FAULT_DO": do}
        if at is not None:
            env["BSI_FAULT_AT"] = str(at)
        if on is not None:
            env["BSI_FAULT_ON"] = on
        return env

    def steps(self) -> list[str]:
        """The git subcommands the last call ran, in order."""
        path = self.folder / "steps"
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        return [line.split(" ", 1)[1] if " " in line else "" for line in lines]


def run_faulty(faults: Faults, env: dict[str, str], *args: str, brain: Path, now: str | None) -> Run:
    """Run `bsi` with a faulty git (a kill shows as exit -9).

    Always a process of its own, forked from the test (tests/reliability/forked.py): the faulty git kills
    its caller (`kill -9 $PPID`), which must be a `bsi` and never the test.
    """
    return forked.run(bsi_command(*args, brain=brain, now=now)[len(BSI):], env=env, cwd=brain, timeout=120)
