"""`brain-tui`: open the cockpit on a brain (or on a fresh demo brain)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from typing import NoReturn

from brain_tui.core.errors import BsiError

from .hangup import EXIT_HANGUP, HangUp
from .themes import NO_COLOR_THEME


class _Parser(argparse.ArgumentParser):
    """argparse answering a usage error with SPEC 13's exit 64 (and the usage), not argparse's own 2."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and the error on stderr, then exit 64."""
        self.print_usage(sys.stderr)
        self.exit(64, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The command line of `brain-tui` (SPEC 19)."""
    parser = _Parser(
        prog="brain-tui",
        description="The cockpit of a BSI brain: claims, signals, satellites, gates, environment and breath.",
    )
    parser.add_argument("--brain", metavar="PATH", help="the brain folder (default: $BRAIN_ROOT, else found upwards)")
    parser.add_argument("--demo", action="store_true", help="build a demo brain in a temporary folder and open it")
    parser.add_argument("--gates", action="store_true", help="open straight on the human-gate approval screen")
    parser.add_argument("--readonly", action="store_true", help="show only: every action is hidden and refused")
    parser.add_argument("--theme", metavar="NAME",
                        help="brain-dark, brain-light, high-contrast, ansi-dark, ansi-light, or any Textual theme")
    parser.add_argument("--now", metavar="ISO", help="the time to run at (demos, tests); default: the clock")
    parser.add_argument("--no-bell", dest="bell", action="store_false", default=None,
                        help="no bell, desktop notice or notify: command when something new needs you")
    parser.add_argument("--instance", metavar="NAME", help="this cockpit's instance (default brain_name@host)")
    parser.add_argument("--serve", action="store_true",
                        help="serve the cockpit to a browser on this machine (one-time link; ssh -L from afar)")
    parser.add_argument("--port", type=int, default=None, metavar="N", help="--serve: the port (default 8000)")
    parser.add_argument("--host", default="127.0.0.1", metavar="H",
                        help="--serve: a loopback address to bind (default 127.0.0.1; others are refused)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the cockpit; its exit code: 0 on quit, 64 on a usage error, 66 when no brain is found, 129 on hang-up."""
    hangup = HangUp()
    hangup.install()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.serve:
        from .serve import ServeRefused, loopback_host

        try:
            loopback_host(args.host)  # refused before anything is built or bound
        except ServeRefused as exc:
            sys.stderr.write(exc.message + "\n")
            return exc.exit_code
    elif args.port is not None or args.host != "127.0.0.1":
        sys.stderr.write("brain-tui: --port and --host go with --serve\n")
        return 64
    from brain_tui.core.brain import Brain, find_root
    from brain_tui.core.clock import make_clock, zone_from_name

    demo_dir: str | None = None
    try:
        if args.demo:
            from brain_tui.demo import build_demo

            demo_dir = hangup.demo_dir = tempfile.mkdtemp(prefix="brain-tui-demo-")
            root = build_demo(demo_dir, make_clock(args.now, zone_from_name(None))())
        else:
            root = find_root(args.brain)
        brain = Brain(root, now=args.now, instance=args.instance)
    except BsiError as exc:
        hint = "; or try `brain-tui --demo`" if exc.exit_code == 66 and "brain-tui --demo" not in exc.message else ""
        sys.stderr.write(f"brain-tui: {exc.message}{hint}\n")
        if demo_dir:
            shutil.rmtree(demo_dir, ignore_errors=True)
        return exc.exit_code
    if args.serve:
        try:
            return _serve(args, brain.root, brain.brain_name)
        finally:
            if demo_dir:
                shutil.rmtree(demo_dir, ignore_errors=True)
    from .app import BrainApp

    theme = args.theme
    no_color = os.environ.get("NO_COLOR") is not None
    if theme is None and no_color:
        theme = NO_COLOR_THEME
    # NO_COLOR: the terminal's own colours (Textual's NoColor filter), not a grey picture of the theme.
    app = BrainApp(brain, readonly=args.readonly, gates=args.gates, theme=theme, bell=args.bell,
                   title_hint="demo" if args.demo else "", demo_path=demo_dir, ansi_color=True if no_color else None)
    if args.theme and args.theme not in app.available_themes:
        names = ", ".join(sorted(app.available_themes))
        sys.stderr.write(f"brain-tui: unknown theme {args.theme!r}: one of {names}\n")
        if demo_dir:
            shutil.rmtree(demo_dir, ignore_errors=True)
        return 64
    hangup.app = app
    try:
        code = app.run()
    except Exception:
        if hangup.hung_up.is_set():  # the terminal went away under the app: a hang-up, not an error
            return EXIT_HANGUP
        raise
    finally:
        if demo_dir:
            shutil.rmtree(demo_dir, ignore_errors=True)
    if hangup.hung_up.is_set():
        return EXIT_HANGUP
    if app.return_code is not None and app.return_code != 0:
        return app.return_code
    return int(code or 0)


def _serve(args: argparse.Namespace, root: os.PathLike[str] | str, name: str) -> int:
    """`--serve`: the cockpit in a browser (tui/serve.py); each connection runs this cockpit's command line."""
    from pathlib import Path

    from .serve import DEFAULT_PORT, cockpit_argv, serve

    argv = cockpit_argv(Path(root), readonly=args.readonly, gates=args.gates, theme=args.theme, now=args.now,
                        instance=args.instance, bell=args.bell)
    port = DEFAULT_PORT if args.port is None else args.port
    return serve(argv, host=args.host, port=port, brain_name=name)


if __name__ == "__main__":
    sys.exit(main())
