"""`bsi notify test`: run the `notify:` command of brain-compose.yml once, for a made-up item."""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command

TYPE_CHECKING = False  # the parser loads no core module: each handler imports what it uses (start-up)
if TYPE_CHECKING:
    from typing import Any


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add `bsi notify test`."""
    p = sub.add_parser("notify", help="the notify: command (word of new attention items)", parents=[parent])
    verbs = p.add_subparsers(dest="notify_command", metavar="ACTION")
    add_command(verbs, parent, "test", "run the notify: command once for a made-up item", cmd_notify_test)


def cmd_notify_test(ctx: Context) -> int:
    """`bsi notify test [--json]`: 0 when the command ran and exited 0; 64 none configured; 69 it failed."""
    import json

    argv = ctx.brain.notifier().test()
    ctx.emit({"argv": list(argv), "ok": True},
             "bsi: notify command ran: " + " ".join(json.dumps(arg, ensure_ascii=False) for arg in argv))
    return 0
