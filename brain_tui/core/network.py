"""How long a fetch or push may take: `$BSI_NETWORK_TIMEOUT`, and what is said of a value that cannot be used.

Apart from core/sync/remote.py (which uses it) so the command line reads it on every run without loading the
git machinery.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

#: Seconds a fetch or push may take before the remote counts as unreachable (exit 69).
DEFAULT_NETWORK_TIMEOUT = 60.0
VARIABLE = "BSI_NETWORK_TIMEOUT"


def network_timeout(environ: Mapping[str, str] | None = None) -> float:
    """The fetch/push time limit: `$BSI_NETWORK_TIMEOUT` seconds (in `environ`, default os.environ) when it is a
    positive finite number, else 60 (`network_timeout_problem` says why a value set was not used)."""
    value = _setting(os.environ if environ is None else environ)
    return DEFAULT_NETWORK_TIMEOUT if value is None else value


def network_timeout_problem() -> str | None:
    """Why `$BSI_NETWORK_TIMEOUT` is set but not used, as one line for the front-ends to warn of; None when it is
    unset, empty or used. Never a refusal: a bad variable must not stand between a human and a pause."""
    text = os.environ.get(VARIABLE, "")
    if not text or _setting(os.environ) is not None:
        return None
    shown = repr(text[:40]) + ("…" if len(text) > 40 else "")
    return (f"{VARIABLE}={shown} is not a positive number of seconds: ignored, "
            f"the default {DEFAULT_NETWORK_TIMEOUT:.0f}s is used")


def _setting(env: Mapping[str, str]) -> float | None:
    """`BSI_NETWORK_TIMEOUT` as seconds when it is a positive finite number, else None."""
    try:
        value = float(env.get(VARIABLE, ""))
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None
