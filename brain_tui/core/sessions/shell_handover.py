"""Commands an agent's shell hands to a process outside its own: a tmux or screen server, at, cron, systemd.

What such a server runs or types has no agent among its ancestors and none of the agent's environment: it would act
as a human's terminal (SPEC 21.1), so `tmux new-window 'bsi gate approve ID'` would approve a gate and `tmux
send-keys -t COCKPIT a` would type an approval into the pilot's cockpit (SPEC 21.2: a human's verbs refuse inside an
agent's process, whatever the spelling). The write decision refuses a line that hands a command over; reading a
scheduler's queue passes. Every tmux command but ``tmux -V`` is refused: tmux runs ``#(…)`` in a format, and takes
more commands after a ``\\;`` word, which is a separator to the reader's tokens. Standard library only.
"""

from __future__ import annotations

#: Programs that run what they are given in a server or a later job of their own, and their read-only uses.
_HANDOVER = {"screen": ("-ls", "-list"), "at": ("-l",), "batch": (), "crontab": ("-l",), "systemd-run": (),
             "dtach": (), "abduco": ("-l",), "atq": None, "atrm": None}


def handed_over(name: str, args: list[str]) -> str:
    """The command `name ARGS` hands to a process outside the agent's own, as shown ("" when it hands none)."""
    if name == "tmux":
        return _tmux(args)
    if name not in _HANDOVER:
        return ""
    reads = _HANDOVER[name]
    if reads is None or (reads and args and all(arg in reads for arg in args)):
        return ""
    return name


def _tmux(args: list[str]) -> str:
    if args == ["-V"]:
        return ""
    command = next((arg for arg in args if not arg.startswith("-")), "new-session")  # `tmux` alone: a session
    return f"tmux {command}"
