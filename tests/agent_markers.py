"""The test process is a human's: the agent markers it may inherit are removed before anything reads them.

A developer may run the suite from inside a coding agent (its Bash tool carries `CLAUDECODE`,
`CLAUDE_CODE_SESSION_ID`, …): every `bsi` the tests start would then be an agent's, and a
human's verb would refuse (SPEC 21). tests/conftest.py imports this module first, before the
runner (tests/bsi.py) copies the environment. An agent *process* among the ancestors cannot be
removed this way: run the suite from your own terminal.
"""

from __future__ import annotations

import os

from brain_tui.core.rules.authority import AGENT_ENV_MARKERS

#: The markers found (and removed) at start, by name.
REMOVED: tuple[str, ...] = tuple(name for name in AGENT_ENV_MARKERS if os.environ.pop(name, None) is not None)
