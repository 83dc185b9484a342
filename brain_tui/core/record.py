"""Records: frozen data classes that cost almost nothing to define, for the modules every command loads.

Why: `bsi`'s read commands must start within 5× a bare `python -c pass` (issue 18). The standard
`dataclasses` module imports `inspect` (with `ast`, `dis`, `tokenize`: ~9 ms of CPU) and builds each class
by compiling five or six generated functions one by one (~0.6 ms a class): ~17 ms for the records a read
loads, a quarter of the command. `record` does the same job with one generated ``__init__`` per class
(fast instances: the hot path builds thousands) and shared methods for the rest, and never imports
`dataclasses` unless something asks a record for its dataclass fields.

What a `@record` class gets, as from ``@dataclass(frozen=True)``: ``__init__`` from its annotated fields
(a base record's first), defaults and `field` (``default``, ``default_factory``, ``init``, ``repr``,
``compare``), ``__post_init__`` when defined, ``__repr__``, ``__eq__`` and ``__hash__`` over the compared
fields, frozen ``__setattr__``/``__delattr__`` (`FrozenInstanceError`), ordering with ``order=True``;
``frozen=False`` and ``eq=False`` as in `dataclasses`. Type checkers read it as a dataclass
(`typing.dataclass_transform`).

The standard library still works on records: ``dataclasses.replace``, ``fields``, ``asdict`` and ``is_dataclass`` read
``__dataclass_fields__``, which a record builds on first use from an equivalent dataclass (the only time `dataclasses`
is imported). `replace` and `field_names` here do the same without it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` is not imported at run time: a read's start-up (issue 18)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform, overload
    _T = TypeVar("_T")

__all__ = ["FrozenInstanceError", "field", "field_names", "record", "replace"]

_MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "MISSING"})()
_SPEC = "__record_fields__"


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen record (as `dataclasses.FrozenInstanceError`)."""


class _Field:
    """What `field()` says of one field; completed with its name when the class is built."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr", "type")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool, compare: bool) -> None:
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare
        self.name = ""
        self.type: Any = None


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | Any = _MISSING, init: bool = True,
          repr: bool = True, compare: bool = True) -> Any:
    """A field with a default, a factory of defaults, or left out of ``__init__``, ``__repr__`` or comparisons."""
    return _Field(default, default_factory, init, repr, compare)


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


def _own_fields(cls: type) -> list[_Field]:
    """The fields `cls` itself declares, in order (its class attributes become their defaults)."""
    found = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, _MISSING)
        spec = value if isinstance(value, _Field) else _Field(value, _MISSING, True, True, True)
        spec.name, spec.type = name, annotation
        if isinstance(value, _Field):
            if spec.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        found.append(spec)
    return found


def _init_source(specs: tuple[_Field, ...], frozen: bool, post_init: bool) -> tuple[str, dict[str, Any]]:
    """The source of ``__init__`` and the names it reads (defaults, factories)."""
    params, body, names = ["self"], [], {"__set": object.__setattr__, "__missing": _MISSING}
    for spec in specs:
        value = spec.name
        if spec.init:
            if spec.default is not _MISSING:
                names[f"__d_{spec.name}"] = spec.default
                params.append(f"{spec.name}=__d_{spec.name}")
            elif spec.default_factory is not _MISSING:
                names[f"__f_{spec.name}"] = spec.default_factory
                params.append(f"{spec.name}=__missing")
                value = f"__f_{spec.name}() if {spec.name} is __missing else {spec.name}"
            else:
                params.append(spec.name)
        elif spec.default is not _MISSING:
            names[f"__d_{spec.name}"] = spec.default
            value = f"__d_{spec.name}"
        elif spec.default_factory is not _MISSING:
            names[f"__f_{spec.name}"] = spec.default_factory
            value = f"__f_{spec.name}()"
        else:
            continue
        body.append(f"  __set(self, {spec.name!r}, {value})" if frozen else f"  self.{spec.name} = {value}")
    if post_init:
        body.append("  self.__post_init__()")
    return f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n", names


def _repr(self: Any) -> str:
    shown = ", ".join(f"{spec.name}={getattr(self, spec.name)!r}" for spec in getattr(self, _SPEC) if spec.repr)
    return f"{type(self).__qualname__}({shown})"


def _key(self: Any) -> tuple[Any, ...]:
    return tuple([getattr(self, name) for name in type(self).__record_compare__])


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        return _key(self) == _key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(_key(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    # As a frozen dataclass: a record refuses every name; a plain subclass only its fields.
    if _SPEC in type(self).__dict__ or name in type(self).__record_names__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    if _SPEC in type(self).__dict__ or name in type(self).__record_names__:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _order(op: str) -> Callable[[Any, Any], Any]:
    compare = {"__lt__": tuple.__lt__, "__le__": tuple.__le__, "__gt__": tuple.__gt__, "__ge__": tuple.__ge__}[op]

    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(_key(self), _key(other))
        return NotImplemented

    method.__name__ = op
    return method


class _DataclassFields:
    """``__dataclass_fields__`` of a record, built on first use from an equivalent dataclass (for `dataclasses`)."""

    def __get__(self, instance: Any, owner: type) -> dict[str, Any]:
        built = owner.__dict__.get("__record_dataclass_fields__")
        if built is None:
            import dataclasses

            namespace: dict[str, Any] = {"__annotations__": {}}
            for spec in getattr(owner, _SPEC):
                namespace["__annotations__"][spec.name] = spec.type
                namespace[spec.name] = dataclasses.field(
                    default=dataclasses.MISSING if spec.default is _MISSING else spec.default,
                    default_factory=dataclasses.MISSING if spec.default_factory is _MISSING else spec.default_factory,
                    init=spec.init, repr=spec.repr, compare=spec.compare)
            twin: Any = dataclasses.dataclass(type(owner.__name__, (), namespace))
            built = dict(twin.__dataclass_fields__)
            type.__setattr__(owner, "__record_dataclass_fields__", built)
        return built


def _build(cls: type[_T], frozen: bool, eq: bool, order: bool) -> type[_T]:
    inherited: dict[str, _Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for spec in base.__dict__.get(_SPEC, ()):
            inherited[spec.name] = spec
    for spec in _own_fields(cls):
        inherited.pop(spec.name, None)
        inherited[spec.name] = spec
    specs = tuple(inherited.values())
    source, names = _init_source(specs, frozen, hasattr(cls, "__post_init__"))
    exec(source, names)  # noqa: S102 - generated from the class's own field names, as dataclasses does
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    attrs: dict[str, Any] = {
        _SPEC: specs, "__init__": init, "__repr__": _repr,
        "__record_names__": frozenset(spec.name for spec in specs),
        "__record_compare__": tuple(spec.name for spec in specs if spec.compare),
        "__dataclass_fields__": _DataclassFields(),
    }
    own = cls.__dict__
    # As dataclasses: a method the class writes itself stays (a `__hash__` only counts when written, not the
    # None Python sets beside a written `__eq__`).
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if eq:
        attrs["__eq__"] = _eq
        if not explicit_hash:
            attrs["__hash__"] = _hash if frozen else None
    if frozen:
        attrs["__setattr__"], attrs["__delattr__"] = _frozen_setattr, _frozen_delattr
    if order:
        for op in ("__lt__", "__le__", "__gt__", "__ge__"):
            attrs[op] = _order(op)
    for name, value in attrs.items():
        if name in ("__init__", "__repr__", "__eq__", "__lt__", "__le__", "__gt__", "__ge__") and name in own:
            continue
        type.__setattr__(cls, name, value)
    return cls


if TYPE_CHECKING:
    @overload
    def record(cls: type[_T], /) -> type[_T]: ...

    @overload
    def record(*, frozen: bool = True, eq: bool = True, order: bool = False) -> Callable[[type[_T]], type[_T]]: ...
else:
    def dataclass_transform(**_kwargs: Any) -> Callable[[Any], Any]:
        """`typing.dataclass_transform` for type checkers only: at run time it changes nothing."""
        return lambda function: function


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[_T] | None = None, /, *, frozen: bool = True, eq: bool = True,
           order: bool = False) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """Make `cls` a record (see the module docstring); ``@record`` or ``@record(frozen=False, …)``."""
    if cls is None:
        return lambda klass: _build(klass, frozen, eq, order)
    return _build(cls, frozen, eq, order)


def field_names(obj: Any) -> tuple[str, ...]:
    """The field names of a record or a dataclass (instance or class), in order."""
    specs = getattr(obj, _SPEC, None)
    if specs is not None:
        return tuple(spec.name for spec in specs)
    import dataclasses

    return tuple(item.name for item in dataclasses.fields(obj))


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of the record (or dataclass) `obj` with `changes`, as `dataclasses.replace`."""
    specs = getattr(obj, _SPEC, None)
    if specs is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for spec in specs:
        if not spec.init:
            if spec.name in changes:
                raise ValueError(f"field {spec.name} is not set by __init__: it cannot be replaced")
            continue
        if spec.name not in changes:
            changes[spec.name] = getattr(obj, spec.name)
    return obj.__class__(**changes)
