"""The preflight's exit codes (SPEC 10) and the name of the check behind each.

Apart from the checks (`core.rules.preflight`, which re-exports them) so that the write decision names a
refusal's code without loading the checks and the locks (start-up, issue 18).
"""

from __future__ import annotations

GO = 0

SCOPE_VIOLATION = 1

FILE_LOCKED = 2

CIRCUIT_TRIPPED = 3

CLAIM_NOT_OPEN = 4

ZONE_VIOLATION = 5

WRONG_BRANCH = 6

CHECK_NAMES = {
    GO: "go",
    SCOPE_VIOLATION: "scope",
    FILE_LOCKED: "lock",
    CIRCUIT_TRIPPED: "circuit",
    CLAIM_NOT_OPEN: "claim",
    ZONE_VIOLATION: "zone",
    WRONG_BRANCH: "branch",
}
