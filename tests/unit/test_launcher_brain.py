"""A claim `$BSI_SESSION` names is the claim of the brain its launcher started the agent for (SPEC 20.5, 21.4).

`bsi launch` starts the agent with `BSI_SESSION` and `BRAIN_ROOT`. An agent can make a brain of its own, write a
claim there under the ID of another session's claim in the real brain, and launch it: the launched process then
names that ID with a launcher's word. It speaks for the claim only in the brain it was launched for.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain_tui.core.sessions.launch_root import root_argv

needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")

CLAIM = "sess-20261129-1000-theirs"
PROBE = """\
import sys
from brain_tui.core.rules.agent_tree import launcher_claim
from brain_tui.core.rules.authority import acting_in
import os
print(launcher_claim(os.environ, sys.argv[1]) or "-", ",".join(sorted(acting_in(sys.argv[1]).claims)) or "-")
"""


def probe(launched_for: Path, acting_on: Path) -> list[str]:
    """What a process under a launch root started for `launched_for` names when it acts on `acting_on`."""
    env = {**os.environ, "BSI_SESSION": CLAIM, "BRAIN_ROOT": str(launched_for)}
    for name in ("CLAUDECODE", "CLAUDE_CODE_SESSION_ID"):
        env.pop(name, None)
    done = subprocess.run(root_argv(sys.executable, [sys.executable, "-c", PROBE, str(acting_on)]), env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@needs_proc
def test_a_launched_claim_counts_in_the_brain_it_was_launched_for(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    assert probe(real, real) == [CLAIM, CLAIM]


@needs_proc
def test_a_claim_launched_from_another_brain_names_nothing_here(tmp_path: Path) -> None:
    real, mine = tmp_path / "real", tmp_path / "mine"
    real.mkdir()
    mine.mkdir()
    assert probe(mine, real) == ["-", "-"]


@needs_proc
def test_a_launch_whose_brain_lies_past_what_is_read_of_its_environment_names_nothing(tmp_path: Path) -> None:
    """Padding put before `BRAIN_ROOT` (over the most of an environment read) hides the brain launched for: the
    launch then counts for no brain, not for every one."""
    real, mine = tmp_path / "real", tmp_path / "mine"
    real.mkdir()
    mine.mkdir()
    env = {"BSI_SESSION": CLAIM, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    env.update({f"PAD{i}": "x" * 120_000 for i in range(10)})
    env["BRAIN_ROOT"] = str(mine)
    done = subprocess.run(root_argv(sys.executable, [sys.executable, "-c", PROBE, str(real)]),
                          env={**env, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["-", "-"]
