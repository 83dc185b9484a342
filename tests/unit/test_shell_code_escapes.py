"""Inline code whose protocol write hides in how a string or a call is spelled (SPEC 21.3): an escape the language
decodes (``"claims\\x2fx.yml"``, ``"\\u0063laims/…"``, Perl's ``"\\x{2f}"``, ``"\\057"``; a shell command's
``"true\\nrm …"``), Perl's three-argument ``open(F, ">", F)``, a mode after a call in the path (``open(Path(F),
"w")``), numeric open flags (``sysopen(F, P, 65)``), Perl's ``<claims/*>`` glob, and library calls that write
(``extractall``, ``ZipFile(F, "w")``, ``urlretrieve``, a logging ``FileHandler``). Each was checked with the real
interpreter where one is installed (python3, perl, node, tclsh: the file went); read as nothing, the write passed
the hook of an agent without an OS sandbox.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import refused_to_both
from tests.unit.shell_brain import sessions as _sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


_ESCAPES = [
    r"""python3 -c 'open("claims\x2fx.yml","w")'""", r"""python3 -c 'open("\u0063laims/x.yml","w")'""",
    r"""python3 -c "open('\143laims/x.yml','w')" """, r"""python3 -c 'open("claims\N{SOLIDUS}x.yml","w")'""",
    r"""python3 -c 'import os; os.system("true\nrm claims/x.yml")'""",
    r"""python3 -c 'import os; os.system("rm\tclaims/x.yml")'""",
    r"""perl -e 'unlink "claims\x{2f}x.yml"'""", r"""perl -e 'unlink "claims\057x.yml"'""",
    r"""perl -e 'unlink "claims\N{U+2F}x.yml"'""",
    r"""node -e 'require("fs").unlinkSync("claims\u002fx.yml")'""",
    r"""node -e 'require("fs").unlinkSync('"'"'claims\u{2f}x.yml'"'"')'""",
    r"""echo 'file delete "claims\x2fx.yml"' | tclsh""",
]
_PERL_OPENS = [
    """perl -e 'open(F, ">", "claims/x.yml")'""", """perl -e 'open my $f, ">>", "claims/x.yml"'""",
    """perl -e 'open(F, "+<", "claims/x.yml")'""", """perl -e 'open(my $f, ">:encoding(UTF-8)", "claims/x.yml")'""",
    """perl -e 'sysopen(F, "claims/x.yml", 65)'""", "perl -e 'unlink <claims/*>'",
]
_CALLS = [
    """python3 -c 'from pathlib import Path; open(Path("claims/x.yml"), "w")'""",
    """python3 -c 'import os; os.open("claims/x.yml", 577)'""",
    """node -e 'require("fs").openSync("claims/x.yml", 1)'""",
    """python3 -c 'import zipfile; zipfile.ZipFile("a.zip").extractall("claims")'""",
    """python3 -c 'import tarfile; tarfile.open("a.tar").extractall(path="claims")'""",
    """python3 -c 'import zipfile; zipfile.ZipFile("claims/x.yml", "w")'""",
    """python3 -c 'import urllib.request as u; u.urlretrieve("http://h.example.com/a", "claims/x.yml")'""",
    """python3 -c 'import logging; logging.FileHandler("claims/x.yml")'""",
    """python3 -c 'import logging; logging.basicConfig(filename="claims/x.yml")'""",
    """python3 -c 'import tempfile; tempfile.mkstemp(dir="claims")'""",
    """python3 -c 'import shelve; shelve.open("claims/x")'""",
    """python3 -c 'import fileinput; [print(l) for l in fileinput.input("claims/x.yml", inplace=True)]'""",
]


@pytest.mark.parametrize("command", _ESCAPES + _PERL_OPENS + _CALLS)
def test_a_protocol_write_however_spelled_is_refused(brain: Brain, command: str) -> None:
    """The protocol file the code writes is a target: refused for any session."""
    reading = read_command(command, str(brain.root))
    written = [t.path for t in reading.targets]
    assert any(path in written for path in (str(brain.root / "claims" / "x.yml"), str(brain.root / "claims"),
                                            str(brain.root / "claims" / "x"))), (command, reading.targets)
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    """perl -e 'open(F, "<", "claims/x.yml"); print <F>'""", """python3 -c 'import os; os.open("claims/x.yml", 0)'""",
    """perl -e 'sysopen(F, "claims/x.yml", 0)'""", r"""python3 -c 'print("claims\tx")'""",
    "echo 'exec ls >@ stdout' | tclsh", "echo 'puts [exec ls 2>@1]' | tclsh",
    """python3 -c 'import zipfile; zipfile.ZipFile("claims.zip").extractall("src/out")'""",
])
def test_reads_and_channels_pass(brain: Brain, command: str) -> None:
    """A read-only open, a string naming nothing protected, and Tcl's `>@ stdout` (a channel, not a file) pass for
    the session bound to `src/`."""
    mine, _unbound = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), mine)
    assert decision.allowed, (command, decision)
