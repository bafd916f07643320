"""How a setting is declared: its type, default, bounds and one line of help on its field.

A setting is a field of one of the frozen dataclasses in `ctxchat.config.settings`; its
annotation is its type and `setting(...)` gives the rest::

    min_recent: int = setting(10, "The last messages always kept in working memory.")
    share: float = setting(0.10, "The share recall takes.", ge=0, le=1)

The reader (`schema.py`), the template (`template.py`), `config show` (`report.py`) and
docs/configuration.md's table (`reference.py`) walk these declarations with `declarations(cls)`.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, TypeVar

from ctxchat.core.budget import BudgetShares

T = TypeVar("T")

Kind = Literal["value", "section", "sections", "strings", "shares"]

_METADATA = "ctxchat.setting"


@dataclass(frozen=True, slots=True)
class Declared:
    """What a field's annotation and default do not say about its key."""

    help: str
    """One line for the template, docs/configuration.md and whoever reads the code."""
    key: str | None = None
    """The key in the file when it is not the field's name."""
    ge: float | None = None
    """The smallest value allowed (whole numbers: 0 when not given)."""
    le: float | None = None
    """The largest value allowed."""
    gt: float | None = None
    """A value must be above this."""
    unit: str | None = None
    """What a number counts, e.g. "seconds" (named in messages and the docs)."""
    what: str | None = None
    """A good value as messages name it, when the type and bounds do not say it well."""
    example: object = None
    """Written commented out in the template while the setting is unset ("" or None)."""
    secret: bool = False
    """A bad value is never shown, only its kind."""
    nonblank: bool = False
    """An empty or blank string is refused."""


def setting(
    default: T,
    help: str,
    *,
    key: str | None = None,
    ge: float | None = None,
    le: float | None = None,
    gt: float | None = None,
    unit: str | None = None,
    what: str | None = None,
    example: object = None,
    secret: bool = False,
    nonblank: bool = False,
) -> T:
    """A setting with a default: the field's value when the file leaves its key out."""
    declared = Declared(help, key, ge, le, gt, unit, what, example, secret, nonblank)
    return dataclasses.field(default=default, metadata={_METADATA: declared})


def required(help: str, *, what: str) -> Any:
    """A setting the file must give (a field without a default)."""
    # Typed Any: mypy counts any assignment as a default, so the required argument is
    # checked when the dataclass is built, not by mypy.
    return dataclasses.field(metadata={_METADATA: Declared(help, what=what)})


def section(
    factory: Callable[[], T],
    help: str,
    *,
    key: str | None = None,
    what: str | None = None,
    nonblank: bool = False,
    example: object = None,
) -> T:
    """A table: a dataclass of settings, a table of them by name, or of strings by name
    (`what` and `nonblank` then say what each string must be)."""
    declared = Declared(help, key=key, what=what, example=example, nonblank=nonblank)
    return dataclasses.field(default_factory=factory, metadata={_METADATA: declared})


@dataclass(frozen=True, slots=True)
class Declaration:
    """One declared field, with its annotation resolved."""

    name: str
    """The field's name."""
    type: Any
    """The field's type: bool, int, float, str, `str | None`, `float | None`, a StrEnum, a
    dataclass of settings, BudgetShares, or a Mapping of str to str or to a dataclass of
    settings."""
    field: dataclasses.Field[Any]
    declared: Declared

    @property
    def key(self) -> str:
        """The key in the file."""
        return self.declared.key or self.name

    @property
    def required(self) -> bool:
        return (
            self.field.default is dataclasses.MISSING
            and self.field.default_factory is dataclasses.MISSING
        )

    @property
    def default(self) -> Any:
        """The value when the file leaves the key out (MISSING when required)."""
        if self.field.default_factory is not dataclasses.MISSING:
            return self.field.default_factory()
        return self.field.default

    @property
    def optional(self) -> bool:
        """A string that may be unset: `str | None` ("" in the file)."""
        return self._unset_or() is str

    @property
    def unset_number(self) -> bool:
        """A number that may be unset: `float | None` (the key left out of the file)."""
        return self._unset_or() is float

    def _unset_or(self) -> object:
        """The type of a `X | None` setting (else None)."""
        if not isinstance(self.type, types.UnionType):
            return None
        held = set(typing.get_args(self.type)) - {type(None)}
        return next(iter(held)) if len(held) == 1 else None

    @property
    def kind(self) -> Kind:
        if self.type is BudgetShares:
            return "shares"
        if declares(self.type):
            return "section"
        if typing.get_origin(self.type) is Mapping:
            _, value = typing.get_args(self.type)
            return "sections" if declares(value) else "strings"
        return "value"

    @property
    def of(self) -> type:
        """The dataclass of settings a section, or each entry of a table of them, holds."""
        if self.kind == "sections":
            held: type = typing.get_args(self.type)[1]
            return held
        held = self.type
        return held

    @property
    def choices(self) -> list[str]:
        """The allowed values of a StrEnum setting (else none)."""
        if isinstance(self.type, type) and issubclass(self.type, StrEnum):
            return [member.value for member in self.type]
        return []

    def expects(self) -> str:
        """A good value, as error messages and the docs name it."""
        declared = self.declared
        if declared.what:
            return declared.what
        if self.type is bool:
            return "true or false"
        if self.type is int:
            low = int(declared.ge or 0)
            return (
                f"a whole number from {low:,} to {int(declared.le):,}"
                if declared.le
                else f"a whole number ≥ {low:,}"
            )
        if self.type is float or self.unset_number:
            return _number(declared)
        if self.choices:
            return "one of " + ", ".join(f'"{choice}"' for choice in self.choices)
        return "a string in quotes"

    def allows(self, value: float) -> bool:
        """Whether a number is within the declared bounds."""
        declared = self.declared
        # A count is never negative unless its declaration says it may be.
        ge = 0 if declared.ge is None and self.type is int else declared.ge
        return not (
            (ge is not None and value < ge)
            or (declared.le is not None and value > declared.le)
            or (declared.gt is not None and value <= declared.gt)
        )


def _number(declared: Declared) -> str:
    if declared.gt is not None:
        if declared.unit:
            return f"{declared.unit}, above {declared.gt:g}"
        return "a positive number" if declared.gt == 0 else f"a number above {declared.gt:g}"
    if declared.ge is not None and declared.le is not None:
        return f"a number from {declared.ge:g} to {declared.le:g}"
    return "a number"


def declares(cls: object) -> bool:
    """Whether `cls` is a dataclass whose fields declare settings."""
    return isinstance(cls, type) and dataclasses.is_dataclass(cls) and bool(declarations(cls))


@functools.cache
def declarations(cls: type) -> tuple[Declaration, ...]:
    """The declared settings of a dataclass, in field order (the file's key order)."""
    hints = typing.get_type_hints(cls)
    return tuple(
        Declaration(field.name, hints[field.name], field, field.metadata[_METADATA])
        for field in dataclasses.fields(cls)
        if _METADATA in field.metadata
    )


def declaration(cls: type, name: str) -> Declaration:
    """The declaration of one field."""
    return next(item for item in declarations(cls) if item.name == name)


def keys_of(cls: type) -> tuple[str, ...]:
    """The keys a table of these settings may hold."""
    return tuple(item.key for item in declarations(cls))


def share_keys() -> tuple[str, ...]:
    """The keys of `[context.shares]`: one per layer with a share, in the core's order."""
    return tuple(BudgetShares().as_dict())


def plain(value: object) -> object:
    """A setting's value as TOML holds it: a choice by its name, an unset string as ""."""
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, BudgetShares):
        return value.as_dict()
    if isinstance(value, Mapping):
        return dict(value)
    return "" if value is None else value
