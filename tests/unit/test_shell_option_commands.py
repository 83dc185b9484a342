"""The command lines a program's options run, read as commands (SPEC 21.3): `split --filter=CMD`, `rsync -e CMD`,
`strace -o '|CMD'`, `ssh -o ProxyCommand=CMD`, `git -c core.sshCommand=CMD`, `script -c CMD`, gpg's
`--photo-viewer`, `man -P`; the wrappers `watch`, `setpriv`, `prlimit`, `unshare`, `nsenter`, `chroot`; and the
command line inline code hands a shell (`perl -e 'system "CMD"'`, `python3 -c 'os.system("CMD")'`). Each was
checked with the real program (the command ran); read as nothing, a protocol write through it passed the hook.
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


@pytest.mark.parametrize("command", [
    "split --filter='rm claims/x.yml' src/a", "split --filter 'rm claims/x.yml' src/a",
    "split --filt='rm claims/x.yml' src/a", "split -l 1 --filter='rm claims/x.yml' src/a src/b",
    "rsync -e 'rm claims/x.yml' src/a host:b", "rsync --rsh='rm claims/x.yml' src/a host:b",
    "rsync -av -e 'rm claims/x.yml' src/a host:b",
    "strace -o '|rm claims/x.yml' true", "strace -o'|rm claims/x.yml' true",
    "strace --output='|rm claims/x.yml' true", "strace -o '!rm claims/x.yml' true",
    "ssh -o ProxyCommand='rm claims/x.yml' host", "ssh -oProxyCommand='rm claims/x.yml' host",
    "ssh -o 'ProxyCommand rm claims/x.yml' host", "ssh -o proxycommand='rm claims/x.yml' host",
    "ssh -o 'LocalCommand=rm claims/x.yml' -o PermitLocalCommand=yes host",
    "ssh -v -o KnownHostsCommand='rm claims/x.yml' host", "scp -o ProxyCommand='rm claims/x.yml' src/a host:b",
    "sftp -o ProxyCommand='rm claims/x.yml' host",
    "git -c core.sshCommand='rm claims/x.yml' fetch", "git -c core.sshcommand='rm claims/x.yml' push",
    "git -c core.pager='rm claims/x.yml' log", "git -c diff.external='rm claims/x.yml' diff",
    "git -c credential.helper='!rm claims/x.yml' fetch",
    "script -c 'rm claims/x.yml' /dev/null", "script -q --command='rm claims/x.yml' /dev/null",
    "gpg --photo-viewer 'rm claims/x.yml' --list-keys", "man -P 'rm claims/x.yml' ls",
    "man --pager='rm claims/x.yml' ls",
    "watch 'rm claims/x.yml'", "watch -n1 rm claims/x.yml", "watch -n 1 -t 'rm claims/x.yml'",
    "watch -x rm claims/x.yml",
    "setpriv rm claims/x.yml", "setpriv --reuid 0 rm claims/x.yml", "setpriv --nnp rm claims/x.yml",
    "prlimit --nofile=100 rm claims/x.yml", "prlimit --nofile=100 -- rm claims/x.yml",
    "prlimit -n100 rm claims/x.yml", "unshare -r rm claims/x.yml", "unshare --map-user=0 -f rm claims/x.yml",
    "nsenter -t 1 -U rm claims/x.yml",
    "perl -e 'system \"rm claims/x.yml\"'", "perl -e 'system(\"rm claims/x.yml\")'",
    "python3 -c 'import os; os.system(\"rm claims/x.yml\")'",
    "python3 -c 'import subprocess; subprocess.run(\"rm claims/x.yml\", shell=True)'",
    "python3 -c 'import os; os.popen(\"rm claims/x.yml\")'",
    # a short option among others before it (getopt's and popt's bundles), with its value attached or apart
    "rsync -ave 'rm claims/x.yml' src/a host:b", "rsync -avze'rm claims/x.yml' src/a host:b",
    "ssh -4o ProxyCommand='rm claims/x.yml' host", "ssh -vo'ProxyCommand rm claims/x.yml' host",
    "scp -qo ProxyCommand='rm claims/x.yml' src/a host:b", "script -qc 'rm claims/x.yml' /dev/null",
    # the other keys naming a command git runs
    "git -c mergetool.x.cmd='rm claims/x.yml' mergetool -t x", "git -c difftool.x.cmd='rm claims/x.yml' difftool",
    "git -c gpg.ssh.defaultKeyCommand='rm claims/x.yml' commit -S", "git -c core.gitProxy='rm claims/x.yml' fetch",
    "git -c browser.x.cmd='rm claims/x.yml' help -w", "git -c interactive.diffFilter='rm claims/x.yml' add -p",
    "git -c sendemail.sendmailcmd='rm claims/x.yml' send-email", "git -c remote.o.uploadpack='rm claims/x.yml' fetch",
    "git -c uploadpack.packObjectsHook='rm claims/x.yml' fetch ../other",
    "git -c sendemail.toCmd='rm claims/x.yml' send-email", "git -c core.alternateRefsCommand='rm claims/x.yml' fetch",
    # a string inline code hands a shell, whatever its prefix or quotes; the commands a backquote runs
    "python3 -c 'import os; os.system(f\"rm claims/x.yml\")'",
    "python3 -c 'import os; os.system(rb\"rm claims/x.yml\")'",
    "python3 -c \"import os; os.system('''rm claims/x.yml''')\"",
    "python3 -c 'import os; os.system(\"\"\"rm claims/x.yml\"\"\")'",
    "perl -e '`rm claims/x.yml`'", "perl -e 'qx{rm claims/x.yml}'", "perl -e 'system q{rm claims/x.yml}'",
    "perl -e 'open(F, \"|rm claims/x.yml\")'", "ruby -e '`rm claims/x.yml`'", "ruby -e '%x(rm claims/x.yml)'",
    "node -e 'require(\"child_process\").execSync(`rm claims/x.yml`)'", "php -r 'echo `rm claims/x.yml`;'",
])
def test_a_command_an_option_runs_is_read_as_a_command(brain: Brain, command: str) -> None:
    """The protocol file the command an option runs removes is a target; the hook refuses it."""
    reading = read_command(command, str(brain.root))
    assert str(brain.root / "claims" / "x.yml") in [t.path for t in reading.targets], (command, reading.targets)
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    "split --filter='rm \"claims/x.yml' src/a", "ssh -o ProxyCommand='rm \"claims' host",
    "chroot jail rm claims/x.yml", "unshare -R jail rm claims/x.yml", "nsenter -t 1 -w rm claims/x.yml",
    "nsenter -t 1 --wdns=/x rm claims/x.yml",
    # a config file git reads, which may name any command it runs; a folder of hooks git runs
    "git -c include.path=notes/cfg ls-remote origin", "git -c includeIf.onbranch:main.path=cfg log",
    "git -c INCLUDE.PATH=cfg status", "git -c core.hooksPath=src/hooks commit -m x",
])
def test_a_command_that_cannot_be_read_is_refused(brain: Brain, command: str) -> None:
    """An option's command line that cannot be read (an unclosed quote), or a command run in a root or folder the
    line does not show, is refused: never read as nothing."""
    reading = read_command(command, str(brain.root))
    assert reading.partial, (command, reading.targets, reading.unread)
    refused_to_both(brain, command)


def test_strace_output_file_is_still_a_file(brain: Brain) -> None:
    """`strace -o FILE` writes FILE; only a value starting with `|` or `!` is a command."""
    reading = read_command("strace -o claims/x.yml true", str(brain.root))
    assert [t.path for t in reading.targets] == [str(brain.root / "claims" / "x.yml")]


@pytest.mark.parametrize("command", [
    "split --filter='gzip > $FILE.gz' -l 10 src/a src/part", "rsync -e 'ssh -p 2222' src/a host:b",
    "ssh -o ProxyCommand='ssh -W %h:%p jump' host", "watch -n 5 ls src", "setpriv --reuid 1000 ls",
    "git -c core.sshCommand='ssh -i key' fetch", "chroot / ls", "strace -o src/trace.txt ls",
])
def test_a_command_that_writes_nothing_protected_passes(brain: Brain, command: str) -> None:
    """What these commands run writes no protocol file: the session bound to `src/` may run them."""
    mine, _unbound = _sessions(brain)
    decision = brain.decide_write(ShellCommand(command), mine)
    assert decision.allowed, (command, decision)


@pytest.mark.parametrize(("command", "files"), [
    ("script -c ls claims/x.yml", ["claims/x.yml"]), ("script claims/x.yml", ["claims/x.yml"]),
    ("script -O claims/x.yml", ["claims/x.yml"]), ("script --log-out=claims/x.yml", ["claims/x.yml"]),
    ("script -B claims/x.yml -c true", ["claims/x.yml"]), ("script -q --log-io claims/x.yml", ["claims/x.yml"]),
    ("script -I claims/x.yml -c true", ["claims/x.yml"]), ("script -T claims/x.yml -c true",
                                                            ["typescript", "claims/x.yml"]),
    ("script --log-timing claims/x.yml -c true", ["typescript", "claims/x.yml"]),
    ("script -tclaims/x.yml -c true", ["typescript", "claims/x.yml"]),
    ("script --timing=claims/x.yml -c true", ["typescript", "claims/x.yml"]),
    ("script -qaO claims/x.yml", ["claims/x.yml"]), ("script -c true", ["typescript"]),
    ("cd claims && script -qc true", ["claims/typescript"]),
])
def test_the_files_script_writes_are_targets(brain: Brain, command: str, files: list[str]) -> None:
    """script writes its typescript (its operand, `-O`, `-B`; `typescript` when none of those, nor `-I`, names one)
    and its logs (`-I`, `-T`, `-t[FILE]`), as the real one does."""
    reading = read_command(command, str(brain.root))
    assert [t.path for t in reading.targets] == [str(brain.root / f) for f in files], (command, reading.targets)


@pytest.mark.parametrize("command", [
    "perl -le 'system \"rm claims/x.yml\"'", "perl -ne 'system \"rm claims/x.yml\"' src/a",
    "perl -lne 'unlink \"claims/x.yml\"' src/a", "perl -wE 'system \"rm claims/x.yml\"'",
    "perl -l0e 'system \"rm claims/x.yml\"'", "ruby -we 'system \"rm claims/x.yml\"'",
    "python3 -Ic 'import os; os.system(\"rm claims/x.yml\")'", "python3 -ISc 'import os; os.remove(\"claims/x.yml\")'",
    "node -pe \"require('child_process').execSync('rm claims/x.yml')+''\"",
    "node --eval=\"require('child_process').execSync('rm claims/x.yml')\"",
    "node --print=\"require('fs').unlinkSync('claims/x.yml')\"",
])
def test_inline_code_in_an_option_bundle_is_read(brain: Brain, command: str) -> None:
    """The code option after flags in one word (`perl -le CODE`, `python3 -Ic CODE`, `node -pe CODE`) or a long
    one with `=` (`node --eval=CODE`) holds the code the interpreter runs, as `-e CODE` does."""
    reading = read_command(command, str(brain.root))
    assert str(brain.root / "claims" / "x.yml") in [t.path for t in reading.targets], (command, reading.targets)
    refused_to_both(brain, command)


@pytest.mark.parametrize(("command", "code"), [
    ("perl -ie 's/a/b/' src/a", False), ("perl -Ie -e 'print 1'", True), ("perl -Mstrict -le 'print 1'", True),
    ("python3 -Wignore -c 'print(1)'", True), ("ruby -Ie -e 'p 1'", True),
])
def test_an_option_taking_the_rest_of_its_word_ends_the_bundle(brain: Brain, command: str, code: bool) -> None:
    """`perl -ie` is `-i` with the backup extension `e` (no code option: perl reads the next word as its script);
    `-Ie` a folder named `e`: the letters after such an option are its value, not options."""
    from brain_tui.core.sessions.shell_code import inline_codes

    words = command.split()
    assert bool(inline_codes(words[0], words[1:])) is code, command


@pytest.mark.parametrize("command", [
    "git rebase -x 'rm claims/x.yml' HEAD~1", "git rebase --exec='rm claims/x.yml' HEAD~1",
    "git rebase --exec 'rm claims/x.yml' HEAD~1", "git rebase -x'rm claims/x.yml' HEAD~1",
    "git difftool -x 'rm claims/x.yml'", "git difftool --extcmd='rm claims/x.yml'",
    "git grep -O'rm claims/x.yml' x", "git grep --open-files-in-pager='rm claims/x.yml' x",
    "git send-email --sendmail-cmd='rm claims/x.yml' x", "git send-email --to-cmd 'rm claims/x.yml' x",
    "git ls-remote --upload-pack='rm claims/x.yml;' .", "git fetch --upload-pack 'rm claims/x.yml;' .",
    "git pull --upload-pack='rm claims/x.yml;' .", "git clone -u 'rm claims/x.yml;' . src/c",
    "git clone --upload-pack='rm claims/x.yml;' . src/c", "git archive --remote=. --exec='rm claims/x.yml;' HEAD",
    "git clone -c core.sshCommand='rm claims/x.yml' h:x src/c",
    "git clone --config=core.sshCommand='rm claims/x.yml' h:x src/c",
    # a key whose subsection holds dots (a URL, a driver or remote named with dots) names a command all the same
    "git -c diff.a.b.command='rm claims/x.yml' diff", "git -c filter.a.b.clean='rm claims/x.yml' add src",
    "git -c 'credential.https://h.example.com.helper=!rm claims/x.yml' ls-remote https://h.example.com/x",
    "git -c remote.o.x.uploadpack='rm claims/x.yml' fetch o.x",
])
def test_a_command_a_git_subcommand_option_runs_is_read(brain: Brain, command: str) -> None:
    """The command lines git's subcommands run through their options (`rebase -x`, `difftool -x`, `grep -O`,
    `send-email --sendmail-cmd`, an `--upload-pack` or `--exec` git runs here for a local remote, `clone -c KEY=CMD`
    used by its own fetch) are read as commands; each ran with git 2.39."""
    reading = read_command(command, str(brain.root))
    assert str(brain.root / "claims" / "x.yml") in [t.path for t in reading.targets], (command, reading.targets)
    refused_to_both(brain, command)


@pytest.mark.parametrize("command", [
    "X='rm claims/x.yml' git --config-env=core.sshCommand=X ls-remote h:x",
    "X='rm claims/x.yml' git --config-env core.pager=X log", "git submodule foreach 'rm claims/x.yml'",
    "git clone -c include.path=src/cfg h:x src/c",
])
def test_a_command_git_runs_that_the_line_does_not_show_is_refused(brain: Brain, command: str) -> None:
    """`--config-env KEY=VAR` for a key naming a command (its value is a variable's), `submodule foreach CMD` (run in
    each submodule's folder), a clone's `include.path`: not read whole, refused."""
    reading = read_command(command, str(brain.root))
    assert reading.partial, (command, reading.targets, reading.unread)
    refused_to_both(brain, command)
