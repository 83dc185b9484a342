"""The parse cache's helper process: on a cold start, a second core parses part of the missing files.

`cache.ParseCache.prefetch` starts one `Helper`, which runs `helper_main` in a
fresh Python; paths go in and outcomes come back as JSON over pipes (never
pickle). Any failure of the helper only means the parent parses those files too.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from brain_tui.core.records.cache_rows import FileKey, Parser, content_digest, is_json_value, no_gc
from brain_tui.core.records.yamlio import CorruptYaml

__all__ = ["HELPER_TIMEOUT_S", "Helper", "helper_main", "helper_share", "parser_name", "spare_core"]

#: A helper that has not answered this long after this process finished its own share is given up.
HELPER_TIMEOUT_S = 60.0


def spare_core() -> bool:
    """True when this process may use a second core (and can start Python again)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores >= 2 and bool(sys.executable)


def helper_share(misses: int) -> int:
    """How many of `misses` files one helper takes: about half, less its start-up (~1,300 files' worth)."""
    return max(0, (misses - 1300) // 2)


def parser_name(parse: Parser) -> str | None:
    """``module:function`` of a parser the helper can import (only brain_tui's own), else None."""
    module, name = getattr(parse, "__module__", ""), getattr(parse, "__qualname__", "")
    if not module.startswith("brain_tui.") or not name.isidentifier():
        return None
    return f"{module}:{name}"


class Helper:
    """One helper process parsing a list of files; talks JSON over pipes (never pickle)."""

    def __init__(self, process: Any, writer: Any) -> None:
        self.process = process
        self.writer = writer

    @classmethod
    def start(cls, root: Path, files: list[tuple[str, Parser]]) -> Helper | None:
        """Start a helper on `files`; None when it cannot start (then the caller parses them)."""
        import subprocess
        import threading

        names = [parser_name(parse) for _rel, parse in files]
        if not files or None in names:
            return None
        request = json.dumps({"root": str(root), "files": [[rel, name] for (rel, _p), name in zip(files, names,
                                                                                                  strict=True)]})
        import brain_tui

        package_home = str(Path(brain_tui.__file__).resolve().parent.parent)  # the same code as this process
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_home,
                                                                          os.environ.get("PYTHONPATH")]))}
        try:
            read_fd, write_fd = os.pipe()
            try:
                process = subprocess.Popen(
                    [sys.executable, "-c",
                     "from brain_tui.core.records.cache_worker import helper_main; helper_main()"],
                    stdin=read_fd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True, env=env,
                )
            finally:
                os.close(read_fd)
        except (OSError, ValueError):
            with contextlib.suppress(Exception):
                os.close(write_fd)
            return None

        def feed() -> None:  # a pipe holds 64 KiB: write from a thread so this process starts parsing now
            with contextlib.suppress(OSError), os.fdopen(write_fd, "wb") as pipe:
                pipe.write(request.encode("utf-8"))

        writer = threading.Thread(target=feed, name="parse-cache-helper-feed", daemon=True)
        writer.start()
        return cls(process, writer)

    def finish(self) -> dict[str, tuple[FileKey, int, str, Any]] | None:
        """The helper's answers by path; None when it failed (then the caller parses everything)."""
        import subprocess

        try:
            out, _err = self.process.communicate(timeout=HELPER_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            return None
        finally:
            self.writer.join(timeout=1.0)
        if self.process.returncode != 0:
            return None
        answers: dict[str, tuple[FileKey, int, str, Any]] = {}
        try:
            with no_gc():
                for rel, after, read_ns, digest, outcome in json.loads(out):
                    if after is not None and outcome is not None:
                        answers[str(rel)] = (tuple(after), int(read_ns), str(digest), outcome)
        except (ValueError, TypeError):
            return None
        return answers


def helper_main() -> None:
    """The helper process: read ``{"root", "files": [[rel, "module:parser"]]}`` on stdin, answer JSON on stdout.

    Each answer is ``[rel, key_after, read_ns, digest, outcome]``; key and outcome
    are null when the file vanished, could not be read or gave data JSON cannot
    hold (the parent then reads that file itself).
    """
    import importlib

    from brain_tui.core.records.cache import ParseCache

    request = json.loads(sys.stdin.buffer.read())
    cache = ParseCache(request["root"], persist=False)
    parsers: dict[str, Parser] = {}
    answers = []
    with no_gc():
        for rel, name in request["files"]:
            parse = parsers.get(name)
            if parse is None:
                module, _sep, attr = name.partition(":")
                if not module.startswith("brain_tui."):
                    raise SystemExit(2)
                parse = parsers[name] = getattr(importlib.import_module(module), attr)
            try:
                read = cache._read(rel)
            except OSError:
                read = None
            if read is None:
                answers.append([rel, None, 0, "", None])
                continue
            raw, after, read_ns = read
            try:
                data = parse(raw)
            except CorruptYaml as exc:
                outcome: Any = {"c": [exc.line, exc.reason]}
            else:
                outcome = {"d": data} if is_json_value(data) else None
            answers.append([rel, list(after), read_ns, content_digest(raw), outcome])
        sys.stdout.write(json.dumps(answers, ensure_ascii=True, separators=(",", ":")))
    sys.stdout.flush()
