"""Inline code that hands a shell a command by an argument list, a pipe open or a call of its own language, and the
writes of its own the reader knows (SPEC 21.3): ``subprocess.run(["sh", "-c", CMD])``, ``os.execl("/bin/sh", "sh",
"-c", CMD)``, node's ``spawn('sh', ['-c', CMD])``, Perl's ``open(F, "-|", CMD)``, Ruby's ``Open3.capture2(CMD)``,
PHP's ``proc_open(CMD, …)``, ``open(F, mode="w")``, ``os.replace``. Each was checked with the real interpreter where
one is installed (python3, perl, node: the file went); read as nothing, the write passed the hook of an agent
without an OS sandbox.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import refused_as_protocol_write
from tests.unit.shell_brain import sessions as _sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


_SHELL_ARGV = [
    "python3 -c 'import subprocess; subprocess.run([\"sh\",\"-c\",\"rm claims/x.yml\"])'",
    "python3 -c 'import os; os.execl(\"/bin/sh\",\"sh\",\"-c\",\"rm claims/x.yml\")'",
    "python3 -c 'import os; os.execlp(\"sh\",\"sh\",\"-c\",\"rm claims/x.yml\")'",
    "python3 -c 'import os; os.spawnlp(os.P_WAIT,\"sh\",\"sh\",\"-c\",\"rm claims/x.yml\")'",
    "python3 -c 'import os; os.posix_spawnp(\"sh\",[\"sh\",\"-c\",\"rm claims/x.yml\"],{})'",
    "python3 -c 'import pty; pty.spawn([\"sh\",\"-c\",\"rm claims/x.yml\"])'",
    "python3 -c 'import subprocess; subprocess.run([\"bash\",\"-lc\",\"rm claims/x.yml\"])'",
    "python3 -c 'import subprocess; subprocess.run([\"/usr/bin/env\",\"bash\",\"-ec\",\"rm claims/x.yml\"])'",
    "python3 -c 'import subprocess; subprocess.run([\"bash\",\"--norc\",\"-c\",f\"rm claims/x.yml\"])'",
    "node -e 'require(\"child_process\").spawn(\"sh\",[\"-c\",\"rm claims/x.yml\"])'",
    "node -e 'require(\"child_process\").execFileSync(\"sh\",[\"-c\",`rm claims/x.yml`])'",
    "perl -e 'system(\"sh\",\"-c\",\"rm claims/x.yml\")'", "perl -e 'system(qw(sh -c), q{rm claims/x.yml})'",
]
_PIPE_OPENS = [
    "perl -e 'open(F, \"|-\", \"rm claims/x.yml\")'", "perl -e 'open(my $f, \"-|\", \"rm claims/x.yml\")'",
    "perl -e 'open(F, q{|-}, q{rm claims/x.yml})'", "perl -e 'open(F, \"-|\", qw(rm claims/x.yml))'",
    "perl -e 'open(F, \"-|\", \"rm\", \"claims/x.yml\")'",
]
_CALLS = [
    "ruby -e 'spawn(\"rm claims/x.yml\")'", "ruby -e 'require \"open3\"; Open3.capture2(\"rm claims/x.yml\")'",
    "ruby -e 'require \"open3\"; Open3.capture3(\"rm claims/x.yml\")'",
    "ruby -e 'require \"open3\"; Open3.popen3(\"rm claims/x.yml\")'", "ruby -e 'IO.popen(\"rm claims/x.yml\")'",
    "php -r 'proc_open(\"rm claims/x.yml\", [], $p);'", "perl -e 'readpipe(\"rm claims/x.yml\")'",
    "python3 -c 'import subprocess; subprocess.run([\"rm claims/x.yml\"], shell=True)'",
    "python3 -c 'import asyncio; asyncio.run(asyncio.create_subprocess_shell(\"rm claims/x.yml\"))'",
]
_WRITES = [
    "python3 -c 'open(\"claims/x.yml\", mode=\"w\")'", "python3 -c 'open(\"claims/x.yml\", newline=\"\", mode=\"a\")'",
    "python3 -c 'from pathlib import Path; Path(\"claims/x.yml\").write_text(\"x\")'",
    "python3 -c 'from pathlib import Path; Path(\"claims/x.yml\").open(\"w\")'",
    "python3 -c 'import shutil; shutil.copy(\"src/a\", \"claims/x.yml\")'",
    "perl -e 'unlink q{claims/x.yml}'", "perl -e \"unlink 'claims/x.yml'\"",
    "python3 -c 'import os; os.replace(\"src/a\",\"claims/x.yml\")'",
    "python3 -c 'import os; os.utime(\"claims/x.yml\")'",
    "python3 -c 'from pathlib import Path; Path(\"claims/x.yml\").touch()'",
    "python3 -c 'import os; os.open(\"claims/x.yml\", os.O_WRONLY)'",
    "python3 -c 'import os; os.mkfifo(\"claims/x.yml\")'",
    "python3 -c 'from pathlib import Path; Path(\"claims/x.yml\").hardlink_to(\"src/a\")'",
    "node -e 'require(\"fs\").openSync(\"claims/x.yml\",\"w\")'",
    "node -e 'require(\"fs\").createWriteStream(\"claims/x.yml\")'",
    "node -e 'require(\"fs\").truncateSync(\"claims/x.yml\")'", "node -e 'require(\"fs\").rmdirSync(\"claims\")'",
    "node -e 'require(\"fs\").mkdirSync(\"claims/x.yml\")'",
    "node -e 'require(\"fs\").linkSync(\"src/a\",\"claims/x.yml\")'",
    "node -e 'require(\"fs\").rmSync(`claims/x.yml`)'", "node -e 'require(\"fs\").cpSync(\"src/a\",\"claims/x.yml\")'",
    "node -e 'require(\"fs\").utimesSync(\"claims/x.yml\",1,1)'",
    "python3 -c \"exec('import os; os.remove(\\\"claims/x.yml\\\")')\"",
    "python3.12 -c 'import os; os.remove(\"claims/x.yml\")'", "perl5.36 -e 'unlink \"claims/x.yml\"'",
]


@pytest.mark.parametrize("command", _SHELL_ARGV + _PIPE_OPENS + _CALLS + _WRITES)
def test_code_writing_a_protocol_file_is_refused(brain: Brain, command: str) -> None:
    """The protocol file the code (or the command line it hands a shell) writes is a target: refused for any
    session."""
    refused_as_protocol_write(brain, command)


@pytest.mark.parametrize("command", [
    "python3 -c 'import subprocess; subprocess.run([\"bash\",\"-c\",\"rm notes/a\"])'",
    "node -e 'require(\"child_process\").spawnSync(\"/bin/sh\",[\"-c\",\"rm notes/a\"])'",
    "perl -e 'open(my $f, \"-|\", \"rm notes/a\")'", "perl -e 'open(F, \"-|\", qw(rm notes/a))'",
    "ruby -e 'Open3.capture2e(\"rm notes/a\")'", "php -r 'proc_open(\"rm notes/a\", [], $p);'",
])
def test_a_command_handed_a_shell_is_read(brain: Brain, command: str) -> None:
    """What the code's shell command writes outside the session's claim is a target: refused."""
    assert str(brain.root / "notes" / "a") in [t.path for t in read_command(command, str(brain.root)).targets]
    mine, _unbound = _sessions(brain)
    assert not brain.decide_write(ShellCommand(command), mine).allowed


@pytest.mark.parametrize("command", [
    "python3 -c 'print(open(\"claims/x.yml\").read())'",
    "python3 -c 'import subprocess; subprocess.run([\"ls\",\"-c\"])'",
    "python3 -c 'open(\"claims/x.yml\", encoding=\"utf-8\").read()'",
    "python3 -c 'open(\"claims/x.yml\", mode=\"r\").read()'",
    "python3 -c 'import subprocess; subprocess.run([\"sh\",\"-c\",\"cat claims/x.yml > src/out\"])'",
    "perl -e 'open(F, \"-|\", \"cat claims/x.yml\")'", "perl -e 'open(F, \"<\", \"claims/x.yml\")'",
    "node -e 'console.log(require(\"fs\").readFileSync(\"claims/x.yml\", \"utf8\"))'",
    "ruby -e 'puts Open3.capture2(\"cat claims/x.yml\")'",
])
def test_harmless_code_passes(brain: Brain, command: str) -> None:
    """Code that reads a protocol file, runs a program that is no shell, or hands a shell a command writing inside
    the claim passes for the session bound to `src/`."""
    mine, _unbound = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), mine)
    assert decision.allowed, (command, decision)


def test_other_paths_writing_code_names_are_kept_apart_from_its_targets(brain: Brain) -> None:
    """Code that writes: a protocol path it names is a target; another path it names is kept in `in_code` (what
    it writes there is unknown: the decision judges it as written only for a file held by `##` sections); code
    that only reads keeps none."""
    root = str(brain.root)
    writing = read_command("python3 -c \"open('plan.md','a').write(open('claims/x.yml').read())\"", root)
    assert [t.path for t in writing.targets] == [f"{root}/claims/x.yml"]
    assert f"{root}/plan.md" in [t.path for t in writing.in_code]
    reading = read_command("python3 -c \"print(open('plan.md').read())\"", root)
    assert not reading.in_code and not reading.targets
