"""Every `bsi` process the tests start runs from cached bytecode, as an installed `bsi` does.

An environment with `PYTHONDONTWRITEBYTECODE` set (some containers and CI images set it) makes every
child interpreter compile the package's sources again: about twice the CPU of each `bsi`, hook and
cockpit process the harnesses start. tests/conftest.py imports this module first, before the runner
(tests/bsi.py) copies the environment: the variable is dropped and the bytecode goes to one folder
under the system's temporary directory, outside the source tree, shared by the xdist workers.
"""

from __future__ import annotations

import os
import tempfile

#: Whether the inherited environment asked for no bytecode (and was overridden).
OVERRIDDEN: bool = os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None
if OVERRIDDEN and "PYTHONPYCACHEPREFIX" not in os.environ:
    os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), f"brain-tui-pycache-{os.getuid()}")
