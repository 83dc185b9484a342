"""A command the agent's shell hands to a process outside its own (a tmux or screen server, at, cron, systemd) runs
there as nobody's agent: `tmux send-keys -t cockpit a` types a human's approval into the pilot's cockpit, and
`tmux new-window 'bsi gate approve ID'` runs the verb with no agent among its ancestors (SPEC 21.2: whatever the
spelling). The hook refuses such a line (every tmux command but `tmux -V`: tmux runs `#(…)` in formats and
takes more commands after `\\;`); reading a scheduler's queue stays allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain_tui.core.sessions.shell_targets import read_command
from tests.bsi import ok, run_bsi
from tests.hooks.test_client_tools import pre_tool_use
from tests.hooks.test_pre_tool_use import AGENT, assert_allowed, assert_denied

HANDED = [
    "tmux send-keys -t cockpit a Enter",
    "tmux send -t %3 'bsi gate approve x' Enter",
    "tmux new-window 'bsi gate approve sess-20261129-1000-x'",
    "tmux neww -d bsi claim release x --reason done",
    "tmux split-window -h 'sh -c x'",
    "tmux new-session -d -s s 'bsi gate resume x'",
    "tmux run-shell 'bsi gate approve x'",
    "tmux display-message -p '#(bsi gate approve x)'",
    "tmux paste-buffer -t cockpit",
    "tmux ls \\; send-keys -t cockpit a",
    "tmux -L other respawn-pane -k 'bsi gate approve x'",
    "/usr/bin/tmux send-keys a",
    "screen -S pilot -X stuff 'a\\n'",
    "screen -dm bsi gate approve x",
    "echo 'bsi gate approve x' | at now",
    "batch < job.sh",
    "crontab job.cron",
    "systemd-run --user bsi gate approve x",
    "dtach -n /tmp/s bsi gate approve x",
    "abduco -n s bsi gate approve x",
    "ls && tmux send-keys -t 0 a",
    "bash -c 'tmux send-keys -t 0 a'",
    "tmux ls", "tmux list-panes -a -F '#{pane_id}'", "tmux has-session -t brain", "tmux",
    # the command named after a runner on the line
    "ls | xargs tmux send-keys -t 0", "xargs -I {} tmux send-keys -t {} a < panes", "xargs -n1 -P 2 tmux send-keys",
    "find . -maxdepth 0 -exec tmux send-keys -t 0 a \\;", "find . -execdir screen -X stuff a +",
    "watch -n 1 tmux send-keys -t 0 a", "parallel tmux send-keys -t {} a ::: 0 1",
    # tmux by its other names, and other terminals that take keys or commands from outside
    "byobu send-keys -t 0 a", "tmate send-keys a", "zellij action write-chars a", "zellij run -- bsi gate approve x",
    "kitty @ send-text a", "kitten @ send-text a", "wezterm cli send-text a", "xdotool type a", "ydotool type a",
    "wtype a",
    # a service manager starting a unit (a file the unit names runs as its child), on Linux and macOS
    "systemctl --user start approve.service", "systemctl --user enable --now x.timer", "systemctl restart x",
    "systemctl --user daemon-reload", "systemctl --user import-environment", "launchctl load ~/x.plist",
    "launchctl submit -l x -- bsi gate approve x", "launchctl bootstrap gui/501 x.plist",
    # an option's value spelled as a verb that only reads: the verb is the word after it
    "systemctl -o cat start approve.service", "systemctl --output cat --user start x", "systemctl -p status start x",
    "systemctl --user --property show link /tmp/x.service", "systemctl -H status restart x",
    "systemctl --new-option status start x",
]
READS = ["tmux -V", "screen -ls", "crontab -l", "atq", "at -l", "zellij ls", "ls | xargs grep tmux",
         "find . -name '*.tmux' -exec grep -l tmux {} +", "watch -n 1 ls", "grep -r tmux src", "echo tmux",
         "systemctl --user status x.service", "systemctl is-active --quiet x", "systemctl list-units --type=service",
         "systemctl --user show -p ActiveState x", "systemctl cat x", "launchctl list", "launchctl print gui/501",
         "systemctl --user --no-pager -l status x", "systemctl -o json show x", "systemctl -aq list-units",
         "systemctl --output=cat status x"]


@pytest.mark.parametrize("command", HANDED)
def test_a_command_handed_to_a_process_outside_the_agents_is_seen(command: str) -> None:
    assert read_command(command, "/tmp").elsewhere


@pytest.mark.parametrize("command", READS)
def test_reading_a_servers_state_hands_nothing_over(command: str) -> None:
    assert read_command(command, "/tmp").elsewhere == ""


def test_the_hook_refuses_a_line_that_hands_a_command_over(brain: Path) -> None:
    ok(run_bsi("claim", "open", "--scope", "src/", "--story", "mine", "--agent-session", AGENT, brain=brain))
    for command in ("tmux send-keys -t cockpit a Enter", "tmux new-window 'bsi gate approve x'"):
        assert_denied(pre_tool_use(brain, "Bash", {"command": command}), "outside")
    assert_denied(pre_tool_use(brain, "Bash", {"command": "tmux send-keys a"}, session="sess-unbound-x"), "outside")
    assert_allowed(pre_tool_use(brain, "Bash", {"command": "tmux -V"}))
    assert_allowed(pre_tool_use(brain, "Bash", {"command": "echo 'tmux send-keys a' > src/notes.txt"}))
