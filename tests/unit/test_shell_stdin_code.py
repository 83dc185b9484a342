"""An interpreter's code fed on its standard input, when the line shows it (SPEC 21.3): ``python3 <<< CODE``,
``echo CODE | python3``, ``python3 - <<'EOF'``, ``cat <<EOF | node``, ``perl``, ``ruby``, ``php``, ``tclsh``. It is
read as the same code given by option (``python3 -c CODE``) is: a protocol file named in code that writes is a
target, a string handed to a shell (``os.system("CMD")``, Tcl's ``exec CMD``) is read as the command line it is.
Each was checked with the real interpreter where one is installed (python3, perl, node, tclsh: the file went); read
as nothing, the write passed the hook of an agent without an OS sandbox.
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


@pytest.mark.parametrize("command", [
    "python3 <<< 'import os; os.system(\"rm claims/x.yml\")'",
    "echo 'open(\"claims/x.yml\",\"w\")' | python3",
    "python3 - <<'EOF'\nimport os\nos.remove('claims/x.yml')\nEOF",
    "python3 <<EOF\nimport os\nos.remove('claims/x.yml')\nEOF",
    "cat <<EOF | python3\nimport os; os.remove('claims/x.yml')\nEOF",
    "cat <<'EOF' | python3 -\nimport os; os.system('rm claims/x.yml')\nEOF",
    "printf 'import os\\nos.remove(\"claims/x.yml\")\\n' | python3",
    "python3 -u <<< 'import os; os.remove(\"claims/x.yml\")'",
    "python3 -i <<< 'import os; os.remove(\"claims/x.yml\")'",
    "python3 -W ignore - <<< 'import os; os.remove(\"claims/x.yml\")'",
    "sudo python3 <<< 'import shutil; shutil.rmtree(\"claims\")'",
    "python3 <<EOF\n$(rm claims/x.yml)\nEOF",
    "perl <<< 'unlink \"claims/x.yml\"'",
    "perl - <<< 'unlink \"claims/x.yml\"'",
    "echo 'system \"rm claims/x.yml\"' | perl -w",
    "node <<< 'require(\"fs\").unlinkSync(\"claims/x.yml\")'",
    "echo 'require(\"fs\").unlinkSync(\"claims/x.yml\")' | node -",
    "node --input-type=module <<< 'import fs from \"fs\"; fs.rmSync(\"claims/x.yml\")'",
    "ruby <<< 'File.delete(\"claims/x.yml\")'",
    "echo 'FileUtils.rm_rf(\"claims/x.yml\")' | ruby -rfileutils",
    "php <<< '<?php unlink(\"claims/x.yml\");'",
    "echo '<?php system(\"rm claims/x.yml\");' | php --",
    "echo 'exec rm claims/x.yml' | tclsh",
    "echo 'file delete claims/x.yml' | tclsh",
    "tclsh <<< 'set f [open claims/x.yml w]; close $f'",
    "tclsh <<'EOF'\nfile delete -force {claims/x.yml}\nEOF",
    "python3 /dev/stdin <<< 'import os; os.remove(\"claims/x.yml\")'",
    "python3 /dev/fd/0 <<< 'import os; os.remove(\"claims/x.yml\")'",
    "python3 /proc/self/fd/0 <<< 'import os; os.remove(\"claims/x.yml\")'",
    "perl /dev/stdin <<< 'unlink \"claims/x.yml\"'",
    "node /dev/stdin <<< 'require(\"fs\").unlinkSync(\"claims/x.yml\")'",
    "python3.12 <<< 'import os; os.remove(\"claims/x.yml\")'", "perl5.36 <<< 'unlink \"claims/x.yml\"'",
])
def test_code_fed_to_an_interpreter_on_standard_input_is_read(brain: Brain, command: str) -> None:
    """The protocol file the code writes is a target; the hook refuses it, for any session."""
    refused_as_protocol_write(brain, command)


@pytest.mark.parametrize("command", [
    "python3 <<< 'import os; os.system(\"rm notes/a\")'", "echo 'exec rm notes/a' | tclsh",
    "perl <<< '`rm notes/a`'",
])
def test_a_command_stdin_code_hands_a_shell_is_read(brain: Brain, command: str) -> None:
    """What the code's shell command writes outside the session's claim is a target: refused."""
    assert str(brain.root / "notes" / "a") in [t.path for t in read_command(command, str(brain.root)).targets]
    mine, _unbound = _sessions(brain)
    assert not brain.decide_write(ShellCommand(command), mine).allowed


@pytest.mark.parametrize("command", [
    "python3 <<< 'print(1)'", "echo '{}' | python3 -m json.tool",
    "python3 -m json.tool <<< '{\"open\": \"claims/x.yml\", \"w\": 1}'",
    "echo 'print(open(\"claims/x.yml\").read())' | python3",
    "python3 src/a.py <<< 'import os; os.remove(\"claims/x.yml\")'",
    "echo 'claims/x.yml' | perl -ne 'print'", "echo 'claims/x.yml' | node -e 'process.stdin.pipe(process.stdout)'",
    "echo 'puts hello' | tclsh", "echo 'puts [exec cat claims/x.yml]' | tclsh",
    "tclsh src/a.tcl <<< 'file delete claims/x.yml'",
])
def test_harmless_or_unread_stdin_passes(brain: Brain, command: str) -> None:
    """Code that writes nothing protected, data fed to a module or to inline code, and the input of a script file
    (the sandbox's) pass for the session bound to `src/`."""
    mine, _unbound = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), mine)
    assert decision.allowed, (command, decision)
