"""The one way a record becomes its JSON shape (the `--json` output and the MCP tools' results).

A record (`brain_tui.core.record`) that derives from `JsonShaped` gets `as_dict()`: its fields in declaration order,
with per-class renames (`_json_names`) and left-out fields (`_json_omit`); fields listed in
`_json_if_set` appear only when set (a None, empty or zero value is left out), those in
`_json_none_if_unset` give null when not set; the properties named in `_json_extra` follow the fields.
Values become JSON values the same way everywhere: a nested record gives its own `as_dict()`, a tuple or list a list,
a mapping a dict, a moment its ISO text.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from brain_tui.core.record import field_names

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from typing import Any, ClassVar


def json_value(value: Any) -> Any:
    """`value` as JSON holds it: a record's ``as_dict()``, a list for a tuple or list, a dict for a mapping,
    ISO text for a moment."""
    if isinstance(value, datetime):
        return value.isoformat()
    as_dict = getattr(value, "as_dict", None)
    if callable(as_dict):
        return as_dict()
    if isinstance(value, (tuple, list)):
        return [json_value(item) for item in value]
    if isinstance(value, Mapping):
        return {key: json_value(item) for key, item in value.items()}
    return value


def json_text(data: Any) -> str:
    """`data` as strict JSON text (UTF-8 kept): a number JSON has no spelling for (YAML's `.inf`, `.nan`, read from a
    claim file edited by hand) is null, never `Infinity` or `NaN`, which no strict reader takes."""
    import json

    try:
        return json.dumps(data, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(data), ensure_ascii=False, allow_nan=False)


def _finite(value: Any) -> Any:
    import math

    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [_finite(item) for item in value]
    return value


class JsonShaped:
    """Mixin for records: `as_dict()` from the fields (see the module docstring)."""

    _json_names: ClassVar[Mapping[str, str]] = {}
    _json_omit: ClassVar[frozenset[str]] = frozenset()
    _json_if_set: ClassVar[frozenset[str]] = frozenset()
    _json_none_if_unset: ClassVar[frozenset[str]] = frozenset()
    _json_extra: ClassVar[tuple[str, ...]] = ()

    def as_dict(self) -> dict[str, Any]:
        """The record's JSON shape: its fields in order, renamed and filtered as the class says."""
        out: dict[str, Any] = {}
        for name in field_names(self):  # every user is a record
            if name in self._json_omit:
                continue
            value = getattr(self, name)
            if not value and name in self._json_if_set:
                continue
            if not value and name in self._json_none_if_unset:
                value = None
            out[self._json_names.get(name, name)] = json_value(value)
        for name in self._json_extra:
            out[name] = json_value(getattr(self, name))
        return out
