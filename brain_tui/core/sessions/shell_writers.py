"""The commands that write the files they name, for the shell's reader (`shell_targets`): ``cp``, ``mv``,
``install`` and ``ln`` (destinations; ``mv`` and a hard link also their sources: `shell_copies`), ``rsync`` (its
destination, all of it), ``rm``, ``unlink``, ``shred``, ``touch``, ``mkdir``, ``rmdir``, ``truncate``, ``tee``, the
commands writing a file's mode, owner or attributes (``chmod``, ``chown``, ``chgrp``, ``chattr``, ``setfacl``), ``dd
of=``, ``sed`` (``-i``, its backups, and the files its script's ``w`` writes: `shell_outputs`) and ``perl -i``.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import re

from brain_tui.core.sessions.shell_copies import copy_like
from brain_tui.core.sessions.shell_line_state import makes_links
from brain_tui.core.sessions.shell_options import options as _options

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["WRITERS", "read_writer"]

#: The options that take a value (`shell_options.options`) of the programs read here: cp, mv, install and ln (one
#: table: an option one of them lacks, it refuses), rsync, rm and its kin, the programs making what they name, sed
#: and perl (`-i` aside: sed's and perl's in-place edit is read apart).
_COPY_VALUES = frozenset({"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g",
                          "--group", "--sparse", "--no-preserve", "--strip-program"})
_RSYNC_VALUES = frozenset({"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from",
                           "--include-from", "--files-from", "-T", "--temp-dir", "--backup-dir", "--partial-dir"})
_REMOVE_VALUES: dict[str, frozenset[str]] = {"rm": frozenset(), "unlink": frozenset(),
                                             "shred": frozenset({"-n", "--iterations", "-s", "--size"})}
_MAKE_VALUES: dict[str, frozenset[str]] = {
    "touch": frozenset({"-d", "-t", "-r", "--date", "--reference"}), "mkdir": frozenset({"-m", "--mode"}),
    "truncate": frozenset({"-s", "-r", "--size", "--reference"}), "tee": frozenset(), "rmdir": frozenset()}
_SED_VALUES = frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"})
_PERL_VALUES = frozenset({"-e", "-E", "-I", "-M", "-m"})

#: Commands that write a file's mode, owner or attributes, with their options that take a value: `chmod MODE FILE…`
#: (the first operand is no file, unless `--reference` or a mode given as an option says it: `chmod -w FILE`).
_METADATA = {"chmod": {"--reference"}, "chown": {"--reference", "--from"}, "chgrp": {"--reference"},
             "chattr": {"-v", "-p"}, "setfacl": {"-m", "-M", "-x", "-X", "--set", "--set-file", "--modify",
                                                 "--modify-file", "--remove", "--remove-file", "--restore"}}
#: Their own short options: any other letter after `-` is a mode (`chmod -w F`, `chattr -i F`).
_METADATA_OWN = {"chmod": "Rcfv", "chattr": "RVfvp"}

#: The commands `read_writer` reads.
WRITERS = frozenset({"cp", "mv", "install", "ln", "rsync", *_REMOVE_VALUES, *_MAKE_VALUES, *_METADATA, "dd", "sed",
                     "perl"})


def read_writer(name: str, args: list[str], cwd: str | None, reading: ShellReading, home: str | None,
                depth: int) -> str | None:
    """Record the files `name ARGS…` (one of `WRITERS`, run in `cwd`) writes; return the working folder after it
    (`perl` without ``-i`` is read as the interpreter it is: `shell_programs`)."""
    if name in ("cp", "mv", "install", "ln"):
        operands, values, flags = _options(args, set(_COPY_VALUES))
        if name == "install" and flags & {"-d", "--directory"}:  # each operand a folder it makes
            for operand in operands:
                reading.add(operand, cwd, name)
            return cwd
        # a hard link (`ln` without -s, `cp -l`) shares the source's content: a write through it writes the source
        links = (name == "ln" and not flags & {"-s", "--symbolic"}) or (name == "cp" and bool(flags & {"-l", "--link"}))
        before, unread = len(reading.targets), len(reading.unread)
        copy_like(name, operands, values, flags, cwd, reading, moves=name == "mv" or links)
        if makes_links(name, operands, flags, cwd):  # a later write through it lands where it leads
            reading.line.made_links([t.path for t in reading.targets[before:]], len(reading.unread) > unread)
        return cwd
    if name == "rsync":
        operands, _values, _flags = _options(args, set(_RSYNC_VALUES))
        if len(operands) >= 2 and not re.match(r"^[^/]*:", operands[-1]):
            reading.add(operands[-1], cwd, name, tree=True)
        return cwd
    if name in ("rm", "unlink", "shred"):
        operands, _values, flags = _options(args, set(_REMOVE_VALUES[name]))
        recursive = bool(flags & {"-r", "-R", "--recursive"})
        for operand in operands:
            reading.add(operand, cwd, name, tree=recursive)
        return cwd
    if name in ("touch", "mkdir", "rmdir", "truncate", "tee"):
        operands, _values, _flags = _options(args, set(_MAKE_VALUES[name]))
        for operand in operands:
            reading.add(operand, cwd, name)
        return cwd
    if name in _METADATA:  # a mode, an owner or an attribute is written too (a protocol folder made unwritable)
        operands, values, flags = _options(args, _METADATA[name])
        own = _METADATA_OWN.get(name)
        moded = own is not None and any(len(flag) == 2 and flag[1] not in own for flag in flags)
        first = 0 if name == "setfacl" or "--reference" in values or moded else 1
        for operand in operands[first:]:
            reading.add(operand, cwd, name, tree=bool(flags & {"-R", "--recursive"}))
        return cwd
    if name == "dd":
        for arg in args:
            if arg.startswith("of="):
                reading.add(arg[3:], cwd, name)
        return cwd
    if name == "sed":
        operands, values, flags = _options(args, set(_SED_VALUES))
        in_place = any(f.startswith("--in-place") for f in flags) or "-i" in flags or "-i" in values \
            or any(k.startswith("--in-place") for k in values)
        scripted = "-e" in values or "-f" in values or "--expression" in values or "--file" in values
        from brain_tui.core.sessions.shell_outputs import backups, sed_outputs  # (it reads with these helpers)

        scripts = [v for k, v in zip(args, args[1:], strict=False) if k in ("-e", "--expression")]
        scripts += [a.split("=", 1)[1] for a in args if a.startswith("--expression=")]
        scripts += [a[2:] for a in args if a.startswith("-e") and len(a) > 2 and not a.startswith("--")]
        scripts += [values[k] for k in ("-e", "--expression") if k in values]  # `-ne SCRIPT`
        for output in sed_outputs(scripts if scripted else operands[:1]):
            reading.add(output, cwd, "sed")
        if not in_place:
            return cwd
        files = operands if scripted else operands[1:]
        for operand in files + backups(name, args, files):
            reading.add(operand, cwd, "sed -i")
        return cwd
    if name == "perl":
        operands, values, flags = _options(args, set(_PERL_VALUES))
        if "-i" not in flags and "-i" not in values:
            from brain_tui.core.sessions.shell_programs import read_program

            return read_program(name, args, cwd, reading, home, depth)
        files = operands if ("-e" in values or "-E" in values) else operands[1:]
        from brain_tui.core.sessions.shell_outputs import backups

        for operand in files + backups(name, args, files):
            reading.add(operand, cwd, "perl -i")
        return cwd
    return cwd
