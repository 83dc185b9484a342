"""An option's value that names a standard stream or the null device (`-`, `/dev/stdout`, `/dev/stderr`,
`/dev/null`) is no file written, whichever program's option names it (`shell_options.STREAMS`); a sed `w -` is
sed's file named `-` (sed knows only `/dev/stdout` and `/dev/stderr`)."""

from __future__ import annotations

import pytest

from brain_tui.core.sessions.shell_targets import read_command

STREAM_VALUES = ("-", "/dev/stdout", "/dev/stderr", "/dev/null")


def targets(command: str) -> list[str]:
    return [t.path for t in read_command(command, "/w", home="/home/u").targets]


@pytest.mark.parametrize("stream", STREAM_VALUES)
@pytest.mark.parametrize("template", [
    "sort -o {} in.txt",
    "gpg --log-file {} -d in.gpg",
    "tar -g {} -cf out.tar src",
    "zstd --trace {} -c in.txt",
    "cc -o {} main.c",
    "cc -MF {} -c main.c",
    "python -m pip install --log {} x",
])
def test_a_stream_is_no_file_written(template: str, stream: str) -> None:
    command = template.format(stream)
    written = "/w/-" if stream == "-" else stream  # where a file of that name would be
    assert written not in targets(command), command


def test_sed_w_dash_is_a_file_named_dash() -> None:
    assert targets("sed -n 'w -' in.txt") == ["/w/-"]
