"""`bsi init`, `bsi demo`, `bsi index`."""

from __future__ import annotations

import argparse

from brain_tui.cli.common import Context, add_command

TYPE_CHECKING = False  # the parser loads no core module (start-up)
if TYPE_CHECKING:
    from typing import Any


def register(sub: Any, parent: argparse.ArgumentParser) -> None:
    """Add the brain-level commands."""
    p = add_command(sub, parent, "init", "create a brain (git init when needed)", cmd_init)
    p.add_argument("path", nargs="?", default=".")
    add_command(sub, parent, "demo", "write a realistic demo brain", cmd_demo, "path")
    add_command(sub, parent, "index", "regenerate BRAIN-INDEX.md", cmd_index)


def cmd_init(ctx: Context) -> int:
    """`bsi init [PATH]` (no PATH: the `--brain` folder when given, else the current folder)."""
    from brain_tui.core.brain import init_brain

    brain = getattr(ctx.args, "brain", None)
    path = brain if ctx.args.path == "." and brain is not None else ctx.args.path
    root = init_brain(path, commit=not getattr(ctx.args, "no_commit", False), now=getattr(ctx.args, "now", None))
    ctx.emit({"brain": str(root)}, str(root))
    return 0


def cmd_demo(ctx: Context) -> int:
    """`bsi demo PATH`."""
    from brain_tui.core.clock import make_clock, zone_from_name
    from brain_tui.demo import build_demo

    now = make_clock(getattr(ctx.args, "now", None), zone_from_name("UTC"))()
    root = build_demo(ctx.args.path, now)
    ctx.emit({"brain": str(root)}, str(root))
    return 0


def cmd_index(ctx: Context) -> int:
    """`bsi index`."""
    applied = ctx.brain.regenerate_index()
    text = "BRAIN-INDEX.md regenerated" if applied.paths else "BRAIN-INDEX.md up to date"
    ctx.emit({"paths": applied.paths, "imported_signals": applied.imported_signals,
              "commit": applied.commit}, text)
    return 0
