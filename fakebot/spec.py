"""The official Bot API spec (``api.json``), parsed: methods, types and their fields.

The spec is vendored next to this file (``api.json``, MIT, from
PaulSonOfLars/telegram-bot-api-spec) so the tests run from a bare clone; the environment
variable ``FAKEBOT_API_SPEC`` may point at another copy. :mod:`fakebot.validator` checks
requests against it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPEC_PATH = Path(__file__).with_name("api.json")

#: Types whose values are not JSON objects.
PRIMITIVES = frozenset({"String", "Integer", "Float", "Boolean", "InputFile"})


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request (an ``InputFile`` uploaded by the bot)."""

    name: str
    filename: str | None
    content_type: str | None
    data: bytes


@dataclass(frozen=True)
class FieldSpec:
    """One parameter of a method or field of a type."""

    name: str
    types: tuple[str, ...]
    required: bool
    description: str = ""


@dataclass(frozen=True)
class MethodSpec:
    """A Bot API method: its canonical name, parameters and return types."""

    name: str
    fields: Mapping[str, FieldSpec]
    returns: tuple[str, ...] = ()


class ApiSpec:
    """The parsed ``api.json``: methods (looked up case-insensitively, as Telegram does) and
    types."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.version: str = str(data.get("version", "?"))
        self.types: dict[str, dict[str, Any]] = dict(data["types"])
        self.methods: dict[str, MethodSpec] = {}
        self._by_lower: dict[str, MethodSpec] = {}
        for name, raw in data["methods"].items():
            spec = MethodSpec(
                name=name,
                fields={f["name"]: _field(f) for f in raw.get("fields", [])},
                returns=tuple(raw.get("returns", ())),
            )
            self.methods[name] = spec
            self._by_lower[name.lower()] = spec
        self._type_fields: dict[str, dict[str, FieldSpec]] = {
            name: {f["name"]: _field(f) for f in raw.get("fields", [])}
            for name, raw in self.types.items()
        }

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> ApiSpec:
        """Load a spec file: ``path``, else ``$FAKEBOT_API_SPEC``, else the vendored copy.
        The default is cached: parsing 900 kB per test would be wasted time."""
        if path is None:
            return _default_spec(os.environ.get("FAKEBOT_API_SPEC") or str(SPEC_PATH))
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def method(self, name: str) -> MethodSpec | None:
        """The method called ``name`` (any letter case), or None."""
        return self._by_lower.get(name.lower())

    def type_fields(self, type_name: str) -> dict[str, FieldSpec] | None:
        """The fields of an object type, or None if the type is unknown."""
        return self._type_fields.get(type_name)

    def subtypes(self, type_name: str) -> list[str]:
        """Concrete subtypes of an abstract type (``BotCommandScope`` -> ``...Chat``...)."""
        return [s for s in self.types.get(type_name, {}).get("subtypes", []) if s in self.types]


def _field(raw: Mapping[str, Any]) -> FieldSpec:
    return FieldSpec(
        name=raw["name"],
        types=tuple(raw["types"]),
        required=bool(raw.get("required", False)),
        description=str(raw.get("description", "")),
    )


_SPEC_CACHE: dict[str, ApiSpec] = {}


def _default_spec(path: str) -> ApiSpec:
    if path not in _SPEC_CACHE:
        _SPEC_CACHE[path] = ApiSpec(json.loads(Path(path).read_text(encoding="utf-8")))
    return _SPEC_CACHE[path]
