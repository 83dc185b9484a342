"""The `bsi` command, above the front-ends: `bsi mcp` goes to the MCP server, every other command to the CLI.

The front-ends stand in layers (pyproject's import-linter contract: `tui | mcp` over `cli` over `hooks | demo` over
`core`), so the CLI never imports the MCP server. This module is what joins them: the `bsi` console script,
`python -m brain_tui` and `python -m brain_tui.cli.main` all run `main`.
"""

from __future__ import annotations

import gc
import sys

from brain_tui.cli.main import main as run_cli

TYPE_CHECKING = False  # not `typing`: `bsi hook` and `bsi --help` must start fast
if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import Any


def serve_mcp(root: str | os.PathLike[str], now: str | None, stdout: Any) -> int:
    """`bsi mcp` once the command line parsed: the MCP server on stdio until the client closes."""
    from brain_tui.mcp.server import serve

    gc.enable()  # a server lives long: its cycles must be collected
    return serve(root, now=now, stdout=stdout)


def main(argv: Sequence[str] | None = None) -> int:
    """Run `bsi` and return its exit code (SPEC 19)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    collecting = gc.isenabled()
    if "mcp" not in args_list:
        # A command runs for a moment and makes few cycles: the collector's passes over the objects its imports
        # create cost ~5 % of a read's CPU (benchmarks/startup.py). The MCP server keeps it on; a caller's
        # process (tests run `main` in process) gets it back as it was.
        gc.disable()
    try:
        if args_list[-1:] == ["mcp"]:  # `bsi mcp` answers `initialize` before the parser, the SDK or the core load
            from brain_tui.mcp import front

            served = front.main(args_list)
            if served is not None:
                return served
        return run_cli(args_list, serve_mcp=serve_mcp)
    finally:
        if collecting:
            gc.enable()


def run() -> None:
    """Console-script wrapper."""
    sys.exit(main())


if __name__ == "__main__":
    run()
