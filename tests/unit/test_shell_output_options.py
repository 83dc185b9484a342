"""The files a program writes through one of its options, for the shell's reader (SPEC 21.3).

Each case was checked with the real program in a scratch folder: it writes (creates, or appends to) the file or
the folder the option names. Read as an option taking no file, or not read at all, each wrote a protocol file
unseen: `gpg --log-file claims/x`, `zstd --trace=claims/x`, `tar -g claims/x`, `wget --save-cookies claims/x`,
`vim -w claims/x`, `fakeroot -s claims/x`, `cc -MF claims/x`, `zip -lf claims/x`; `tar --remove-files` and `zip -m`
delete what they archive; `sed -i'claims/*'` and `perl -i'claims/*'` put their backup where the suffix says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.brain import Brain
from brain_tui.core.rules.write_request import ShellCommand
from brain_tui.core.sessions.shell_targets import read_command
from tests.unit import shell_brain
from tests.unit.shell_brain import sessions as _sessions


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    """`shell_brain.make`: `claims/x.yml` and `src/`."""
    return shell_brain.make(tmp_path)


URL = "http://127.0.0.1:9/x"


def _refused(brain: Brain, command: str, written: str, tree: bool = False) -> None:
    reading = read_command(command, str(brain.root))
    found = [(target.path, target.tree) for target in reading.targets]
    assert (str(brain.root / written), tree) in found, (command, found)
    for session in _sessions(brain):
        decision = brain.decide_write(ShellCommand(command), session)
        assert (decision.allowed, decision.check) == (False, "protocol"), (command, decision)


@pytest.mark.parametrize(("command", "written"), [
    ("gpg --log-file claims/g.log --list-keys", "claims/g.log"),
    ("gpg --log-file=claims/g.log --list-keys", "claims/g.log"),
    ("gpg --logger-file claims/g.log --list-keys", "claims/g.log"),
    ("gpg --status-file claims/s --list-keys", "claims/s"),
    ("gpg --status-fi claims/s --list-keys", "claims/s"),  # (gpg takes a unique prefix)
    ("gpg --attribute-file claims/a --list-keys", "claims/a"),
    ("gpg --no-default-keyring --keyring claims/k.kbx --import src/k.asc", "claims/k.kbx"),
    ("gpg --primary-keyring claims/k.kbx --import src/k.asc", "claims/k.kbx"),
    ("gpg --trustdb-name claims/t.gpg --import src/k.asc", "claims/t.gpg"),
    ("zstd --trace claims/t src/a", "claims/t"), ("zstd --trace=claims/t src/a", "claims/t"),
    ("zstd -q src/a -o claims/a.zst", "claims/a.zst"), ("unzstd src/a.zst -o claims/a", "claims/a"),
    ("tar -cf src/a.tar -g claims/snap src/d", "claims/snap"),
    ("tar -cf src/a.tar --listed-incremental=claims/snap src/d", "claims/snap"),
    ("tar cgf claims/snap src/a.tar src/d", "claims/snap"),
    ("tar -cvf src/a.tar --index-file=claims/i src/d", "claims/i"),
    ("tar -cf src/a.tar --volno-file claims/v src/d", "claims/v"),
    ("tar -cf src/a.tar --remove-files claims/x.yml", "claims/x.yml"),
    ("tar -C claims -cf ../src/a.tar --remove-files x.yml", "claims/x.yml"),
    ("wget --save-cookies claims/c -O src/o " + URL, "claims/c"),
    ("wget --save-cookies=claims/c -O src/o " + URL, "claims/c"),
    ("wget -r --rejected-log claims/r -P src " + URL, "claims/r"),
    ("wget --warc-file claims/w -O src/o " + URL, "claims/w.warc.gz"),
    ("wget --warc-file=claims/w --warc-cdx -O src/o " + URL, "claims/w.cdx"),
    ("vim -w claims/w src/f", "claims/w"), ("vim -W claims/w src/f", "claims/w"),
    ("vi -i claims/viminfo src/f", "claims/viminfo"), ("vim -V1claims/v.log src/f", "claims/v.log"),
    ("ex -Vclaims/v.log src/f", "claims/v.log"), ("vim --startuptime claims/s src/f", "claims/s"),
    ("vim --log claims/l src/f", "claims/l"),
    ("sed -i'claims/*' s/a/b/ src/a", "claims/src/a"), ("sed --in-place='claims/*.b' s/a/b/ src/a", "claims/src/a.b"),
    ("perl -pi'claims/*' -e 's/a/b/' src/a", "claims/src/a"), ("perl -i'claims/*' -pe 's/a/b/' src/a", "claims/src/a"),
    ("fakeroot -s claims/env -- true", "claims/env"), ("fakeroot -sclaims/env true", "claims/env"),
    ("cc -MMD -MF claims/d -c src/m.c -o src/m.o", "claims/d"), ("gcc -MFclaims/d -c src/m.c -o src/m.o", "claims/d"),
    ("cc -aux-info claims/a -c src/m.c -o src/m.o", "claims/a"),
    ("cc -Wl,-Map=claims/m src/m.c -o src/m", "claims/m"), ("cc -Wl,-Map,claims/m src/m.c -o src/m", "claims/m"),
    ("cc --output claims/m src/m.c", "claims/m"), ("gcc --output=claims/m src/m.c", "claims/m"),
    ("cc -Xlinker -Map=claims/m src/m.c -o src/m", "claims/m"),
    ("cc -Xlinker -Map -Xlinker claims/m src/m.c -o src/m", "claims/m"),
    ("zip -lf claims/l.txt src/z.zip src/a", "claims/l.txt"), ("zip -lfclaims/l src/z.zip src/a", "claims/l.log"),
    ("zip --logfile-path claims/l src/z.zip src/a", "claims/l.log"),
    ("zip --logfile-path=claims/l.txt src/z.zip src/a", "claims/l.txt"),
    ("zip -m src/z.zip claims/x.yml", "claims/x.yml"),
    ("zip --logfile-p=claims/l src/z.zip src/a", "claims/l.log"),  # (zip takes a unique prefix)
    ("zip src/z.zip src/a --output-file=claims/o.zip", "claims/o.zip"), ("zip --out claims/o src/z", "claims/o.zip"),
])
def test_a_file_an_option_names_is_written(brain: Brain, command: str, written: str) -> None:
    """The file the option names (or, `sed`/`perl -i`, the backup its suffix names) is a target."""
    _refused(brain, command, written)


@pytest.mark.parametrize("command", [
    "gpg --homedir claims --import src/k.asc", "gpg --homedir=claims --import src/k.asc",
    "zstd --output-dir-flat claims src/a", "zstd --output-dir-flat=claims src/a",
    "zstd --output-dir-mirror=claims src/a", "tar -cf src/a.tar --remove-files claims",
    "zip -r -m src/z.zip claims", "zip -b claims src/z.zip src/a", "zip --temp-p=claims src/z.zip src/a",
])
def test_a_folder_an_option_names_is_written_below(brain: Brain, command: str) -> None:
    """gpg's home folder (its keyrings, trust database), zstd's output folders, and what `tar --remove-files` and
    `zip -m` archive (then delete), and the folder zip writes its archive in first (`-b`): everything below."""
    _refused(brain, command, "claims", tree=True)


@pytest.mark.parametrize("command", ["gpg --homedir src/g --import src/k.asc",
                                     "zstd --trace src/t --output-dir-flat src/o src/a",
                                     "tar -cf src/a.tar -g src/snap --remove-files src/d", "vim -w src/w src/f",
                                     "sed -i'src/*.b' s/a/b/ src/a", "fakeroot -s src/env -- true"])
def test_within_the_claim_it_is_allowed(brain: Brain, command: str) -> None:
    """Those files within the session's claim are written as any other."""
    mine, _none = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), mine)
    assert decision.allowed, (command, decision)


@pytest.mark.parametrize(("command", "written"), [
    ("gpg -c claims/x.yml", "claims/x.yml.gpg"), ("gpg --batch -ca claims/x.yml", "claims/x.yml.asc"),
    ("gpg --symmetric --armor claims/x.yml", "claims/x.yml.asc"), ("gpg -e -r me claims/x.yml", "claims/x.yml.gpg"),
    ("gpg -b claims/x.yml", "claims/x.yml.sig"), ("gpg --clear-sign claims/x.yml", "claims/x.yml.asc"),
    ("gpg --sym claims/x.yml", "claims/x.yml.gpg"), ("gpg claims/x.yml.gpg", "claims/x.yml"),
    ("gpg --decrypt-files claims/x.yml.asc", "claims/x.yml"),
    ("gpg --clear claims/x.yml", "claims/x.yml.asc"),  # (a prefix of two names of one option: gpg takes it)
    ("gpg --clear-s claims/x.yml", "claims/x.yml.asc"), ("gpg --armour -b claims/x.yml", "claims/x.yml.asc"),
    ("gpg --store claims/x.yml", "claims/x.yml.gpg"), ("gpg --sto -a claims/x.yml", "claims/x.yml.asc"),
    ("gpg --enarmor claims/x.yml", "claims/x.yml.asc"), ("gpg --enarm claims/x.yml", "claims/x.yml.asc"),
    ("gpg --dearmor claims/x.asc", "claims/x.asc.gpg"), ("gpg --dearmour claims/x.asc", "claims/x.asc.gpg"),
])
def test_gpg_writes_beside_the_file_it_is_given(tmp_path: Path, command: str, written: str) -> None:
    """With no `--output`, gpg writes beside each file: `-c F` F.gpg (checked: `gpg -c f.txt` wrote f.txt.gpg,
    `-c -a` f.txt.asc, `gpg f.txt.gpg` f.txt; `--store f` f.gpg, `--enarmor f` f.asc, `--dearmor f.asc`
    f.asc.gpg; `--clear f` is `--clear-sign f`, `--armour` is `--armor`)."""
    found = {Path(t.path).relative_to(tmp_path).as_posix() for t in read_command(command, str(tmp_path)).targets}
    assert written in found, (command, found)


@pytest.mark.parametrize("command", ["gpg -d claims/x.yml.gpg", "gpg --verify claims/x.yml.asc",
                                     "gpg -c -o /tmp/out.gpg claims/x.yml", "gpg --import claims/keys.asc"])
def test_gpg_printing_or_reading_writes_nothing_beside(tmp_path: Path, command: str) -> None:
    found = [t.path for t in read_command(command, str(tmp_path)).targets]
    assert not [path for path in found if "claims" in path], (command, found)


@pytest.mark.parametrize("command", [
    "tar -cf src/a.tar -I 'rm claims/x.yml; cat' src/d",
    "tar -cf src/a.tar --use-compress-program='rm claims/x.yml' src/d",
    "tar --use-comp 'rm claims/x.yml' -cf src/a.tar src/d", "tar cIf 'rm claims/x.yml' src/a.tar src/d",
    "tar -xf src/a.tar -C src/d --to-command='rm claims/x.yml'",
    "tar -cf src/a.tar --checkpoint=1 --checkpoint-action=exec='rm claims/x.yml' src/d",
    "tar -cf src/a.tar --checkpoint-action=dot --checkpoint-action exec='rm claims/x.yml' src/d",
    "tar -cf src/a.tar -M -F 'rm claims/x.yml' src/d", "tar -cf src/a.tar --info-script='rm claims/x.yml' src/d",
    "zip -T -TT 'rm claims/x.yml; true' src/z.zip src/a", "zip -T --unzip-command='rm claims/x.yml' src/z.zip src/a",
])
def test_a_command_an_option_runs_is_read(brain: Brain, command: str) -> None:
    """tar runs its `-I`, `--to-command`, `--checkpoint-action=exec=`, `-F` and zip its `-TT` command line with the
    shell, in the folder it runs in (checked: each removed `claims/x`, `-C` notwithstanding): read as one."""
    _refused(brain, command, "claims/x.yml")


@pytest.mark.parametrize("command", [
    "gpg --passphrase-fd 0 -c src/a.py", "gpg -z 0 -c src/a.py", "gpg --cipher-algo AES256 -c src/a.py",
    "gpg --comment hi --armor -c src/a.py", "gpg --batch --pinentry-mode loopback --passphrase x -c src/a.py",
])
def test_gpgs_option_values_are_no_files(tmp_path: Path, command: str) -> None:
    """`--passphrase-fd 0`, `-z 0`, `--cipher-algo X`, `--comment TEXT` take a value: read as files, gpg's value
    (`0`) was a file it would encrypt beside itself (`0.gpg`), refused outside the claim."""
    found = {Path(t.path).relative_to(tmp_path).as_posix() for t in read_command(command, str(tmp_path)).targets}
    assert found <= {"src/a.py.gpg", "src/a.py.asc"} and found, (command, found)
