"""`brain_tui.core.record`: records behave as ``@dataclass(frozen=True)`` classes, without importing dataclasses."""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys
from typing import ClassVar

import pytest

from brain_tui.core.json_shape import JsonShaped
from brain_tui.core.record import FrozenInstanceError, field, field_names, record, replace


@record
class Point:
    x: int
    label: str = "p"
    tags: list[str] = field(default_factory=list)
    seen: int = field(default=0, compare=False, repr=False)
    UNIT: ClassVar[str] = "mm"


@record
class Tagged(Point):
    extra: int = 1


@record(order=True)
class Key:
    text: str
    folded: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "folded", self.text.casefold())


@record(frozen=False, eq=False)
class Node:
    children: dict[str, int] = field(default_factory=dict)


@record
class Shaped(JsonShaped):
    sess_id: str
    tags: tuple[str, ...] = ()
    _json_if_set: ClassVar[frozenset[str]] = frozenset({"tags"})


@dataclasses.dataclass(frozen=True)
class Twin:
    x: int
    label: str = "p"
    tags: list[str] = dataclasses.field(default_factory=list)
    seen: int = dataclasses.field(default=0, compare=False, repr=False)


def test_a_record_is_built_compared_and_shown_as_the_same_dataclass() -> None:
    made, twin = Point(1, tags=["a"], seen=5), Twin(1, tags=["a"], seen=5)
    assert repr(made) == repr(twin).replace("Twin", "Point") == "Point(x=1, label='p', tags=['a'])"
    assert made == Point(1, tags=["a"], seen=9)  # `seen` is not compared
    assert made != Point(2) and made != twin and (made == 1) is False
    assert Point(1).tags is not Point(1).tags  # a fresh default each time
    assert Point.UNIT == "mm" and "UNIT" not in field_names(Point)
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_a_frozen_record_refuses_assignment_and_hashes_its_compared_fields() -> None:
    made = Point(1, seen=3)
    with pytest.raises(FrozenInstanceError):
        made.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del made.label  # type: ignore[misc]
    for twin in (made, Twin(1)):  # as a frozen dataclass: no attribute of any name can be set
        with pytest.raises(dataclasses.FrozenInstanceError if isinstance(twin, Twin) else FrozenInstanceError):
            twin.note = "x"  # type: ignore[union-attr]
        assert not hasattr(twin, "note")
    plain = type("Plain", (Point,), {})(1)  # a plain subclass: its own attributes, not the fields
    plain.note = "x"
    with pytest.raises(FrozenInstanceError):
        plain.x = 2
    frozen_point = Key("A")
    assert hash(frozen_point) == hash(Key("A")) and {frozen_point: 1}[Key("A")] == 1
    node = Node()
    node.children["a"] = 1
    node.children = {}
    assert Node() != Node()  # eq=False: identity


def test_inheritance_order_post_init_and_replace() -> None:
    tagged = Tagged(1, "q", extra=4)
    assert field_names(tagged) == ("x", "label", "tags", "seen", "extra")
    assert replace(tagged, extra=5) == Tagged(1, "q", extra=5)
    assert sorted([Key("b"), Key("a")]) == [Key("a"), Key("b")] and Key("B").folded == "b"
    assert replace(Key("Q"), text="R").folded == "r"  # __post_init__ runs again
    with pytest.raises(ValueError):
        replace(Key("Q"), folded="x")


def test_the_standard_library_reads_records_as_dataclasses() -> None:
    tagged = Tagged(1, tags=["t"])
    assert dataclasses.is_dataclass(tagged)
    assert dataclasses.replace(tagged, x=2) == Tagged(2, tags=["t"])
    assert [f.name for f in dataclasses.fields(tagged)] == ["x", "label", "tags", "seen", "extra"]
    assert dataclasses.asdict(tagged) == {"x": 1, "label": "p", "tags": ["t"], "seen": 0, "extra": 1}
    assert pickle.loads(pickle.dumps(tagged)) == tagged


def test_json_shape_reads_a_records_fields() -> None:
    assert Shaped("s").as_dict() == {"sess_id": "s"}
    assert Shaped("s", ("a",)).as_dict() == {"sess_id": "s", "tags": ["a"]}


def test_defining_and_using_records_imports_no_dataclasses() -> None:
    probe = ("import sys\nfrom brain_tui.core.records import model\n"
             "c = model.Lock('f', 'a', 'h', 1, None, None, 5)\n"
             "print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stderr
