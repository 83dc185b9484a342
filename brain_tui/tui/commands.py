"""One declaration per cockpit command: it drives the key bindings, the footer, the help screen and the palette."""

from __future__ import annotations

from textual.binding import Binding

from brain_tui.core.record import record


@record
class Command:
    """A cockpit command.

    Attributes:
        key: the key (Textual key name).
        action: the action name on the screen or app.
        label: the short footer label.
        description: one line for help and the command palette.
        id: the binding id (stable, for keymaps).
        mutating: True when it changes the brain (hidden and refused with --readonly).
        footer: shown in the footer.
        where: "cockpit", "gates" or "app" (app-wide).
        display_key: how help shows the key.
        priority: checked before the focused widget's own bindings (enter over a table's select).
    """

    key: str
    action: str
    label: str
    description: str
    id: str
    mutating: bool = False
    footer: bool = False
    where: tuple[str, ...] = ("cockpit",)
    display_key: str = ""
    priority: bool = False

    @property
    def shown_key(self) -> str:
        """The key as written in help."""
        return self.display_key or self.key


#: Where the keys that act on one claim or signal work: the cockpit, the queue and the detail view.
ON_SELECTION = ("cockpit", "gates", "detail")

COMMANDS: tuple[Command, ...] = (
    Command("o", "open_claim", "Open", "Open a claim (form with a live conflict preview)", "open-claim",
            mutating=True, footer=True),
    Command("c", "close_claim", "Close", "Close the selected claim (tier shown, its requirements asked)",
            "close-claim", mutating=True, footer=True, where=("cockpit", "detail")),
    Command("a", "approve", "Approve", "Approve the selected human gate", "approve-gate", mutating=True,
            footer=True, where=ON_SELECTION),
    Command("x", "reject", "Reject", "Reject the selected human gate (a reason is required)", "reject-gate",
            mutating=True, footer=True, where=ON_SELECTION),
    Command("r", "renew", "Renew", "Renew the selected claim's TTL (also at a gate or paused)", "renew-claim",
            mutating=True, where=ON_SELECTION),
    Command("p", "pause", "Pause", "Pause the selected claim and every open descendant", "pause-claim",
            mutating=True, where=ON_SELECTION),
    Command("u", "resume", "Resume", "Resume the selected claim and the descendants it paused", "resume-claim",
            mutating=True, where=ON_SELECTION),
    Command("X", "abort", "Abort", "Abort the claim and its whole tree (type its slug)",
            "abort-claim", mutating=True, display_key="X  shift+x", where=ON_SELECTION),
    Command("R", "release", "Release", "Release a stale claim (type its slug, give a reason)",
            "release-claim", mutating=True, display_key="R  shift+r", where=ON_SELECTION),
    Command("K", "ack", "Ack", "Acknowledge the selected signal (asks first)", "ack-signal", mutating=True,
            footer=True, where=ON_SELECTION, display_key="K  shift+k"),
    Command("S", "send_signal", "Signal", "Send a signal (from the selected claim, else from this instance)",
            "send-signal", mutating=True, display_key="S  shift+s"),
    Command("L", "launch", "Launch", "Launch an agent for this claim or HANDOFF (tmux)",
            "launch-claim", mutating=True, display_key="L  shift+l"),
    Command("A", "attach", "Attach", "Attach to the tmux window of the claim's agent", "attach-claim",
            display_key="A  shift+a"),
    Command("W", "answer_agent", "Write", "Write to the claim's launched agent: a reply typed into its tmux pane",
            "answer-agent", mutating=True, display_key="W  shift+w", where=ON_SELECTION),
    Command("I", "interrupt_agent", "Interrupt", "Interrupt the claim's launched agent (Escape; asks first)",
            "interrupt-agent", mutating=True, display_key="I  shift+i", where=ON_SELECTION),
    Command("E", "stop_agent", "Stop agent", "Stop the claim's launched agent (kills its tmux window; asks "
            "first; the claim stays)", "stop-agent", mutating=True, display_key="E  shift+e", where=ON_SELECTION),
    Command("enter", "detail", "Detail", "Detail: claim file, gate history, result, git log", "detail",
            where=("cockpit", "gates"), display_key="enter", priority=True),
    Command("n", "next_item", "Next", "Go to the next item that needs you, from any screen", "next-item",
            footer=True, where=("app",)),
    Command("g", "gates", "Queue", "What needs you: gates, blocked, stale… most unblocking first", "gates",
            footer=True, where=("app",)),
    # priority: as `/`, the palette is pushed before the keys typed behind `:` are handed on
    Command("colon", "jump", "Jump", "Jump to a claim by its ID (or part of it)", "jump", display_key=":",
            priority=True),
    Command("greater_than_sign", "sort_next", "Sort", "Sort the focused table by its next column "
            "(or click a column header)", "sort-next", display_key=">"),
    Command("less_than_sign", "sort_reverse", "Reverse", "Reverse the sort of the focused table", "sort-reverse",
            display_key="<"),
    Command("s", "sync", "Sync", "Sync with the git remote now (fetch, rebase, push)", "sync", mutating=True,
            where=("app",)),
    Command("l", "lint", "Lint", "Lint headers: findings across the brain (bsi lint)", "lint", where=("app",)),
    Command("w", "watchdog", "Watchdog", "Run the watchdog (mark expired claims stale)", "watchdog",
            mutating=True, where=("app",)),
    Command("G", "group_by_state", "Group", "Group the active claims by their agent's state: needs you, "
            "working, idle, ended, no agent (kept for later cockpits)", "group-by-state", display_key="G  shift+g"),
    # priority: the keys typed behind `/` in one burst are already queued for the table; run at once, the filter
    # takes the focus before they are handed on, so they are its text (never `p`ause and the like)
    Command("slash", "filter", "Filter", "Filter the tables (esc clears)", "filter",
            display_key="/", priority=True),
    Command("question_mark", "help", "Help", "Keys and what they do", "help", footer=True, where=("app",),
            display_key="?"),
    Command("t", "next_theme", "Theme", "Next theme, for this cockpit (the palette's Theme: keep saves it)", "theme",
            where=("app",)),
    Command("q", "quit", "Quit", "Quit the cockpit", "quit", footer=True, where=("app",)),
)

#: Panes of the cockpit: `1`–`5` focus one (and, below 120 columns, show only it).
PANES: tuple[tuple[str, str], ...] = (
    ("1", "Claims"),
    ("2", "Signals"),
    ("3", "Satellites"),
    ("4", "Environment"),
    ("5", "Breath"),
    ("6", "Locks"),
    ("7", "History"),
)

MUTATING_ACTIONS = frozenset(c.action for c in COMMANDS if c.mutating)


def bindings_for(where: str) -> list[Binding]:
    """The Bindings (with ids and tooltips) of one place ("cockpit", "gates" or "app")."""
    return [
        Binding(c.key, c.action, c.label, show=c.footer, id=c.id, tooltip=c.description, priority=c.priority)
        for c in COMMANDS
        if where in c.where
    ]


def readonly_bindings() -> list[Binding]:
    """Hidden app bindings of every key that changes the brain, to `refuse_readonly`: with --readonly the key's own
    action is off, and the app's check enables these instead, so the key says why it does nothing."""
    keys = dict.fromkeys(c.key for c in COMMANDS if c.mutating)
    return [Binding(key, "refuse_readonly", show=False, id=f"readonly-{key}") for key in keys]
