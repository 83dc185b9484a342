"""The files ``python -m MODULE`` writes where its command line names them, for the shell's reader (`shell_programs`).

``json.tool IN OUT`` (``--outfile OUT``), ``zipfile -c OUT …`` / ``-e ZIP DIR``, ``tarfile -c OUT …`` / ``-e TAR
[DIR]`` (no DIR: the folder it runs in, all of it), ``gzip FILE`` (FILE.gz; ``-d FILE.gz``: FILE), ``venv DIR…``, and
``pip`` (``python -m pip`` or the ``pip`` command): ``install --target|--prefix|--root DIR``, ``download -d DIR``,
``wheel -w DIR``, ``--log FILE``, ``--report FILE``. What else a module writes (``pip install`` into the
environment's site-packages) is unread: the OS sandbox's job.

Standard library only: the hook's fast path reads shell commands with it.
"""

from __future__ import annotations

from brain_tui.core.sessions.shell_options import STREAMS

TYPE_CHECKING = False  # not `typing`: the hook path imports only what it needs
if TYPE_CHECKING:
    from brain_tui.core.sessions.shell_targets import ShellReading

__all__ = ["python_module", "read_module", "read_pip"]

#: The interpreter's own short options that take a value (`-c` and `-m` end its options).
_PYTHON_VALUES = frozenset("cmWXQ")
#: pip's options that take a value: (files written, folders written below, others).
_PIP_FILES = frozenset({"--log", "--report"})
_PIP_FOLDERS = frozenset({"-t", "--target", "--prefix", "--root", "--src", "-d", "--dest", "-w", "--wheel-dir"})
_PIP_OTHERS = frozenset({"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
                         "--extra-index-url", "-f", "--find-links", "--python-version", "--platform",
                         "--implementation", "--abi", "--cache-dir", "--proxy", "--timeout", "--retries",
                         "--trusted-host", "--cert", "--client-cert", "--exists-action", "--upgrade-strategy",
                         "--progress-bar", "--root-user-action", "--config-settings", "-C", "--global-option",
                         "--python", "--no-binary", "--only-binary", "--log-file", "--keyring-provider"})


def python_module(args: list[str]) -> tuple[str, list[str]] | None:
    """The module `python ARGS…` runs with `-m`, and its arguments; None when it runs a script or inline code."""
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if not arg.startswith("-") or arg in ("-", "--"):
            return None
        if arg.startswith("--"):  # `--check-hash-based-pycs VALUE` aside, long options take no value
            index += arg == "--check-hash-based-pycs"
            continue
        for pos, ch in enumerate(arg[1:], start=1):
            if ch not in _PYTHON_VALUES:
                continue
            value = arg[pos + 1:]
            if not value and index < len(args):
                value, index = args[index], index + 1
            if ch == "m":
                return value, args[index:]
            if ch == "c":
                return None
            break
    return None


def read_module(module: str, args: list[str], cwd: str | None, reading: ShellReading) -> None:
    """Add what `python -m MODULE ARGS…` writes where its command line names it."""
    from brain_tui.core.sessions.shell_options import options as _options

    command = f"python -m {module}"
    if module == "json.tool":
        operands, values, _flags = _options(args, {"--indent", "--outfile"})
        outputs = [values["--outfile"]] if "--outfile" in values else operands[1:2]
        for output in outputs:
            if output not in STREAMS:
                reading.add(output, cwd, command)
    elif module in ("zipfile", "tarfile"):
        operands, values, flags = _options(args, {"--filter"})
        if flags & {"-c", "--create"} and operands:
            reading.add(operands[0], cwd, command)
        elif flags & {"-e", "--extract"} and operands:
            reading.add(operands[1] if len(operands) > 1 else ".", cwd, command, tree=True)
    elif module == "gzip":
        operands, _values, flags = _options(args, set())
        for operand in operands:
            if operand in STREAMS:
                continue
            if flags & {"-d", "--decompress"}:
                if operand.endswith(".gz"):
                    reading.add(operand[:-3], cwd, command)
            else:
                reading.add(operand + ".gz", cwd, command)
    elif module == "venv":
        operands, _values, _flags = _options(args, {"--prompt"})
        for operand in operands:
            reading.add(operand, cwd, command, tree=True)
    elif module == "pip":
        read_pip(args, cwd, reading)


def read_pip(args: list[str], cwd: str | None, reading: ShellReading) -> None:
    """Add the folders and files `pip ARGS…` writes where its command line names them."""
    from brain_tui.core.sessions.shell_options import options as _options

    _operands, values, _flags = _options(args, set(_PIP_FILES | _PIP_FOLDERS | _PIP_OTHERS))
    for option, value in values.items():
        if option in _PIP_FILES and value not in STREAMS:
            reading.add(value, cwd, "pip")
        elif option in _PIP_FOLDERS:
            reading.add(value, cwd, "pip", tree=True)
