"""The files other programs write where their command line names them, for the shell's reader (`shell_targets`).

``sort -o FILE``, ``curl -o FILE``, ``wget -O FILE`` / ``-P DIR`` (``--save-cookies``, ``--rejected-log``,
``--warc-file PREFIX``), ``iconv -o``, ``gpg -o`` (``--log-file``, ``--status-file``, ``--keyring``…, ``--homedir
DIR``), ``cc -o`` (``-MF``, ``-aux-info``, ``-Wl,-Map=FILE``); ``uniq IN OUT``, ``split IN PREFIX``, ``csplit -f
PREFIX``; ``mkfifo``, ``mknod``, ``fallocate``, ``mktemp``, ``sponge``, ``link``; the compressors (``gzip FILE``
replaces FILE by FILE.gz; ``zstd -o FILE``, ``--trace FILE``, ``--output-dir-flat DIR``); ``rename``; ``ed``
(the files it opens; vim by any name is `shell_vim`'s); the files a ``sed`` script writes
(``w FILE``, ``s/…/…/w FILE``), and the backups ``sed -iSUFFIX`` and ``perl -iSUFFIX`` make (``-i'bak/*'``: in
``bak/``). Anything such a program writes that its
command line does not show (``curl -O``: a name from the URL) is unread: the OS sandbox's job.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

import os
import re

from brain_tui.core.lazy_re import LazyPattern
from brain_tui.core.sessions.shell_options import OPTIONAL, STREAMS
from brain_tui.core.sessions.shell_options import options as _options
from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["backups", "read_outputs", "sed_outputs"]

_SED_ADDRESS = r"(?:\d+|\$|/(?:\\.|[^/\\\n])*/)"
#: A sed `w`/`W` command (after an optional address or range) and an `s` command's `w` flag: FILE to the line's end.
#: Possessive (`*+`) and without a character two branches both take (a backslash): no backtracking on a crafted line.
_SED_WRITES = (LazyPattern(rf"(?:^|[;{{}}\n])\s*+"
                          rf"(?:{_SED_ADDRESS}(?:\s*+,\s*+{_SED_ADDRESS})?\s*+!?\s*+)?[wW][ \t]*([^\n]+)"),
               LazyPattern(r"s(.)(?:\\.|(?!\1)[^\\\n])*+\1(?:\\.|(?!\1)[^\\\n])*+\1[gpiImMe0-9]*w[ \t]*([^\n]+)"))
#: The file names a sed `w` writes to a stream (sed's own two: `w -` is a file named `-`).
_SED_STREAMS = frozenset({"/dev/stdout", "/dev/stderr"})


def sed_outputs(scripts: list[str]) -> list[str]:
    """The files sed scripts write (``w FILE``, ``1W FILE``, ``s/a/b/w FILE``), but the standard streams."""
    found = [match.group(match.lastindex or 0).strip() for script in scripts for pattern in _SED_WRITES
             for match in pattern.finditer(script)]
    return [path for path in found if path and path not in _SED_STREAMS]


def backups(name: str, args: list[str], files: list[str]) -> list[str]:
    """The backups `sed -iSUFFIX` (`--in-place=SUFFIX`) and `perl -iSUFFIX` make of the files they edit: FILE
    followed by SUFFIX, or, a SUFFIX holding `*`, SUFFIX with each `*` the file's name as given (`-i'bak/*'`
    writes `bak/FILE`, wherever `bak/` is)."""
    suffix = ""
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--in-place=") and name == "sed":
            suffix = arg.partition("=")[2]
        elif arg.startswith("-") and not arg.startswith("--"):
            pos = 1
            while pos < len(arg):
                ch, pos = arg[pos], pos + 1
                if ch == "i":
                    suffix = arg[pos:]
                    break
                if ch in ("efl" if name == "sed" else "eEIMmxdDFC"):
                    break  # the rest of the word is that option's value
                if name == "perl" and ch in "l0":  # perl's `-l[OCTAL]`, `-0[OCTAL]`, `-0xHEX`: its switches go on
                    digits = re.match(r"x[0-9a-fA-F]*|[0-7]*" if ch == "0" else r"[0-7]*", arg[pos:])
                    pos += digits.end() if digits else 0
    if not suffix:
        return []
    return [suffix.replace("*", file) if "*" in suffix else file + suffix for file in files]


def _compiler_outputs(args: list[str]) -> list[str]:
    """The files a compiler's command line names for it to write: `-o` (`--output`), `-MF`, `-aux-info`, the
    linker's `-Map=FILE` (`-Wl,-Map=FILE`, `-Xlinker -Map=FILE`, `-Xlinker -Map -Xlinker FILE`)."""
    found: list[str] = []
    linker = [after for before, after in zip(args, args[1:], strict=False) if before == "-Xlinker"]
    for index, arg in enumerate([*args, "-Wl," + ",".join(linker)] if linker else args):
        following = args[index + 1] if index + 1 < len(args) else ""
        if arg in ("-o", "--output", "-MF", "-aux-info"):
            found.append(following)
        elif arg.startswith(("-o", "-MF", "--output=")):
            found.append(arg.partition("=")[2] if arg.startswith("--") else arg[2 if arg.startswith("-o") else 3:])
        elif arg.startswith("-Wl,"):  # the linker's options, split at commas: `-Map=FILE`, or `-Map` then FILE
            parts = arg[4:].split(",")
            found += [part.partition("=")[2] for part in parts if part.startswith(("-Map=", "--Map="))]
            found += [after for part, after in zip(parts, parts[1:], strict=False) if part in ("-Map", "--Map")]
    return [path for path in found if path and path not in STREAMS]


#: program -> (options naming a file written, options naming a folder written below, other options with a value)
_OUTPUT_OPTIONS: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]] = {
    "sort": (frozenset({"-o", "--output"}), frozenset(),
             frozenset({"-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "-T",
                        "--temporary-directory", "--parallel", "--files0-from", "--batch-size",
                        "--compress-program", "--random-source"})),
    "curl": (frozenset({"-o", "--output", "-c", "--cookie-jar", "-D", "--dump-header", "--trace", "--trace-ascii",
                        "--stderr", "--etag-save", "--hsts", "--alt-svc", "--libcurl"}),
             frozenset({"--output-dir"}),
             frozenset({"-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "-H", "--header", "-X",
                        "--request", "-u", "--user", "-A", "--user-agent", "-e", "--referer", "-b", "--cookie",
                        "-F", "--form", "-m", "--max-time", "--connect-timeout", "-x", "--proxy", "-w",
                        "--write-out", "-T", "--upload-file", "-K", "--config", "-r", "--range", "-E", "--cert",
                        "--cacert", "--key", "--retry", "-z", "--time-cond", "--resolve", "-Y", "-y"})),
    "wget": (frozenset({"-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "--save-cookies",
                        "--rejected-log"}),
             frozenset({"-P", "--directory-prefix"}),
             frozenset({"--warc-file", "-t", "--tries", "-T", "--timeout", "-U", "--user-agent", "-e", "--execute",
                        "-i", "--input-file", "-w", "--wait", "-l", "--level", "-A", "--accept", "-R", "--reject",
                        "--header", "--user", "--password"})),
    "iconv": (frozenset({"-o", "--output"}), frozenset(), frozenset({"-f", "--from-code", "-t", "--to-code"})),
    "gpg": (frozenset({"-o", "--output", "--log-file", "--logger-file", "--status-file", "--attribute-file",
                       "--keyring", "--primary-keyring", "--trustdb-name"}), frozenset({"--homedir"}),
            frozenset({"-r", "--recipient", "-u", "--local-user", "--default-key", "--passphrase", "--passphrase-file",
                       "--passphrase-fd", "--pinentry-mode", "--recipient-file", "-z", "--compress-level",
                       "--cipher-algo", "--digest-algo", "--compress-algo", "--s2k-cipher-algo", "--s2k-digest-algo",
                       "--comment", "--trust-model", "--keyserver", "--command-fd", "--status-fd", "--logger-fd"})),
    "csplit": (frozenset({"-f", "--prefix"}), frozenset(), frozenset({"-b", "--suffix-format", "-n", "--digits"})),
}
#: gpg's commands that write beside each file they are given when no `--output` names one, and the suffix: `.sig`
#: for a detached signature, `.asc` armored (`-a`), clear-signed or `--enarmor`ed, else `.gpg` (`--store F`,
#: `--dearmor F.asc`: F.asc.gpg).
_GPG_MAKES = frozenset({"-c", "--symmetric", "-e", "--encrypt", "-s", "--sign", "-b", "--detach-sign",
                        "--clear-sign", "--clearsign", "--encrypt-files", "--store", "--enarmor", "--dearmor"})
_GPG_SEALED = (".gpg", ".pgp", ".asc")


def _gpg_beside(operands: list[str], flags: set[str]) -> list[str]:
    """The files gpg writes beside the ones given (no `--output`): `gpg -c F` writes `F.gpg` (`F.asc` with `-a`),
    `-b F` `F.sig`, `--clear-sign F` `F.asc`; `gpg F.gpg` with no command (or `--decrypt-files`) decrypts to `F`
    (but `-d F.gpg`, which prints it, and the commands that only read or list)."""
    if flags & _GPG_MAKES:
        armored = bool(flags & {"-a", "--armor", "--clear-sign", "--clearsign", "--enarmor"})
        suffix = ".gpg" if "--dearmor" in flags else ".asc" if armored else \
            ".sig" if flags & {"-b", "--detach-sign"} else ".gpg"
        return [operand + suffix for operand in operands if operand != "-"]
    if flags & _GPG_READS:
        return []
    return [operand[:-4] for operand in operands if operand.endswith(_GPG_SEALED) and len(operand) > 4]


#: gpg's commands that write nothing beside the files they are given (to standard output, or only reading).
_GPG_READS = frozenset({"-d", "--decrypt", "--verify", "--import", "--list-packets", "--show-keys", "--list-keys",
                        "-k", "--fingerprint", "--export", "--list-secret-keys", "-K", "--print-md"})


#: Compilers: `-o FILE` or `-oFILE`, the dependency file `-MF FILE` (or `-MFFILE`), `-aux-info FILE` and the
#: linker's map `-Wl,-Map=FILE` (`-Wl,-Map,FILE`) only (their options are not getopt's: `-Wno-x` holds no `-o`).
_COMPILERS = frozenset({"cc", "gcc", "g++", "c++", "clang", "clang++"})

#: Programs that create or replace each file they are given (the first operand only for `mknod`, the last for
#: `fallocate`, the second for `uniq`, all but the first for `rename`, `link`'s second).
_OPERANDS: dict[str, frozenset[str]] = {
    "mkfifo": frozenset({"-m", "--mode", "--context" + OPTIONAL}),
    "mknod": frozenset({"-m", "--mode"}),
    "fallocate": frozenset({"-l", "--length", "-o", "--offset"}), "sponge": frozenset(),
    "mktemp": frozenset({"-p", "--tmpdir" + OPTIONAL, "--suffix"}),
    "uniq": frozenset({"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"}),
    "split": frozenset({"-a", "-b", "-C", "-l", "-n", "-t", "--additional-suffix", "--suffix-length", "--bytes",
                        "--line-bytes", "--lines", "--number", "--separator", "--filter"}),
    "rename": frozenset(), "prename": frozenset(), "file-rename": frozenset(), "perl-rename": frozenset(),
    "link": frozenset(),
    "ed": frozenset({"-p", "--prompt"}),
}
#: Compressors and what they name the file they write in place of the one given ("" for a decompressor).
_COMPRESSORS = {"gzip": ".gz", "pigz": ".gz", "bzip2": ".bz2", "xz": ".xz", "lzma": ".lzma", "zstd": ".zst",
                "lz4": ".lz4", "compress": ".Z", "gunzip": "", "bunzip2": "", "unxz": "", "unlzma": "",
                "unzstd": "", "uncompress": "", "zstdmt": ".zst"}
_ZSTDS = frozenset({"zstd", "unzstd", "zstdmt"})
#: zstd's options naming a file it writes (`-o` its output, `--trace` its log) and a folder it writes below.
_ZSTD_FILES = frozenset({"-o", "--trace"})
_ZSTD_FOLDERS = frozenset({"--output-dir-flat", "--output-dir-mirror"})
#: The compressors' options that take a value (`shell_options.options`): zstd's `-S` is a flag (a benchmark's result
#: per file), as gzip's and bzip2's `-L` (`--license`).
_COMPRESSOR_VALUES: dict[str, frozenset[str]] = {
    name: frozenset({"-b", "-p", "-T", "--threads"} | ({"--suffix"} | _ZSTD_FILES | _ZSTD_FOLDERS if name in _ZSTDS
                                                       else {"-S", "--suffix"}))
    for name in _COMPRESSORS}
_TO_STDOUT = frozenset({"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test"})


#: script's options naming a file it writes (its typescript, its input and timing logs; `-t[FILE]` an old name of
#: `-T`), and its other options taking a value.
_SCRIPT_FILES = frozenset({"-O", "--log-out", "-B", "--log-io", "-I", "--log-in", "-T", "--log-timing"})
_SCRIPT_VALUES = _SCRIPT_FILES | frozenset({"-t" + OPTIONAL, "--timing" + OPTIONAL, "-c", "--command", "-m",
                                            "--logging-format", "-E", "--echo", "-o", "--output-limit"})


def _script(args: list[str], cwd: str | None, reading: ShellReading) -> None:
    """script's typescript (its operand, `-O`, `-B`; `typescript` where it runs when none of those nor `-I` names
    one) and its logs; without `-c` it runs a shell reading the terminal."""
    operands, values, _flags = _options(args, set(_SCRIPT_VALUES))
    named = [value for option, value in values.items() if option in _SCRIPT_FILES or option in ("-t", "--timing")]
    if not operands[:1] and not values.keys() & {"-O", "--log-out", "-B", "--log-io", "-I", "--log-in"}:
        operands = ["typescript"]
    for output in operands[:1] + named:
        if output not in STREAMS:
            reading.add(output, cwd, "script")
    if not values.keys() & {"-c", "--command"}:
        reading.terminal = reading.terminal or "script"


def read_outputs(name: str, args: list[str], cwd: str | None, reading: ShellReading) -> str | None:
    """Add the files `name ARGS…` writes where its command line names them; return the working folder after it."""
    if name == "script":
        _script(args, cwd, reading)
        return cwd
    if name in _COMPILERS:
        for output in _compiler_outputs(args):
            reading.add(output, cwd, name)
        return cwd
    if name in _OUTPUT_OPTIONS:
        files, folders, others = _OUTPUT_OPTIONS[name]
        _operands, values, flags = _options(args, set(files | folders | others))
        for option, value in values.items():
            if option in files and value not in STREAMS:
                reading.add(value, cwd, name)
            elif option in folders:
                reading.add(value, cwd, name, tree=True)
        if name == "csplit" and not values.keys() & files:
            reading.add("xx00", cwd, name)  # its default prefix, in the working folder
        if name == "curl" and ({"-O", "--remote-name", "-J", "--remote-name-all"} & set(args)):
            reading.unread.append("curl: a file named after the URL")
        if name == "gpg" and not values.keys() & {"-o", "--output"}:
            for output in _gpg_beside(_operands, flags):
                reading.add(output, cwd, name)
        if name == "wget" and "--warc-file" in values:  # PREFIX.warc.gz (.warc uncompressed), PREFIX.cdx
            prefix = values["--warc-file"]
            reading.add(prefix + (".warc" if "--no-warc-compression" in flags else ".warc.gz"), cwd, name)
            if "--warc-cdx" in flags:
                reading.add(prefix + ".cdx", cwd, name)
            if any(arg.startswith("--warc-max-size") for arg in args):
                reading.unread.append("wget: WARC files numbered after the prefix")
        return cwd
    if name in _COMPRESSORS:
        operands, values, flags = _options(args, set(_COMPRESSOR_VALUES[name]))
        for option, value in values.items():
            if option in _ZSTD_FILES | _ZSTD_FOLDERS and name in _ZSTDS and value not in STREAMS:
                reading.add(value, cwd, name, tree=option in _ZSTD_FOLDERS)
        if flags & _TO_STDOUT:
            return cwd
        suffix = _COMPRESSORS[name]
        for operand in operands:
            if operand == "-":
                continue
            reading.add(operand, cwd, name, tree=bool(flags & {"-r", "--recursive"}))
            if suffix and not flags & {"-d", "--decompress", "--uncompress"}:
                reading.add(operand + suffix, cwd, name)
        return cwd
    if name not in _OPERANDS:
        return cwd
    operands, values, flags = _options(args, set(_OPERANDS[name]))
    chosen = operands[:1] if name == "mknod" else operands[-1:] if name == "fallocate" else \
        operands[1:2] if name in ("uniq", "link") else operands[1:] if name.endswith("rename") else \
        operands[-1:] if name == "split" and len(operands) >= 2 else [] if name == "split" else operands
    if name == "mktemp":
        folder = values.get("-p") or values.get("--tmpdir") or ("$TMPDIR" if "--tmpdir" in flags else None)
        chosen = [os.path.join(folder, template) if folder else template
                  for template in operands or (["tmp.XXXXXXXXXX"] if folder else []) if folder or "/" in template]
    for operand in chosen:
        if operand != "-":
            reading.add(operand, cwd, name)
    return cwd
