"""Validation of Bot API requests against the official spec (``api.json``).

Why: the point of running the real PTB ``Application`` against a fake is to catch what
Telegram would refuse before Telegram sees it. The fake therefore checks each request the way
the Bot API server does (unknown method, unknown or missing parameter, wrong type, recursively
inside JSON objects) plus the limits the documentation only states in prose
(:mod:`fakebot.prose`: callback_data bytes, buttons per keyboard, command names...). Message
*text* limits need entity parsing and live in :mod:`fakebot.formatting`.

Wire format. PTB posts ``application/x-www-form-urlencoded`` (or multipart when uploading)
where string values are sent raw and every other value is JSON-encoded (``"123"``, ``"true"``,
``'{"inline_keyboard": ...}'``). A JSON body is normalised to the same shape (non-string
top-level values are re-encoded), as Telegram's server does, so one code path validates both.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from typing import Any

from fakebot import prose
from fakebot.errors import ApiError, Mismatch, bad_request
from fakebot.spec import ApiSpec, MethodSpec, Upload

_DISCRIMINATOR_RE = re.compile(r'(?:always|must be)\s+["“]?([a-z_]+)["”]?')
_QUOTED_RE = re.compile(r'["“]([a-z_]+)["”]')
_INT_RE = re.compile(r"^-?\d+$")
_ATTACH_RE = re.compile(r"attach://([A-Za-z0-9_.-]+)")
_INT64 = 2**63


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, float):
        return "Float"
    if isinstance(value, str):
        return "String"
    if isinstance(value, list):
        return "Array"
    if isinstance(value, dict):
        return "Object"
    return "null"


class Validator:
    """Checks requests and JSON values against an :class:`ApiSpec`.

    ``strict_objects`` (default True) rejects fields an object type does not define: Telegram
    itself ignores them, but inside a bot they are always a typo or a misunderstanding.
    """

    def __init__(self, spec: ApiSpec | None = None, *, strict_objects: bool = True) -> None:
        self.spec = spec or ApiSpec.load()
        self.strict_objects = strict_objects
        self._discriminators: dict[str, tuple[str | None, str | None]] = {}
        entity = (self.spec.type_fields("MessageEntity") or {}).get("type")
        self._entity_types = (
            frozenset(_QUOTED_RE.findall(entity.description)) if entity else frozenset()
        )

    # -- requests ---------------------------------------------------------------------------

    def validate_request(
        self, method_name: str, raw: Mapping[str, str | Upload]
    ) -> tuple[MethodSpec, dict[str, Any]]:
        """Validate one request; return the method and the decoded parameters.

        ``raw`` maps parameter names to the form value (a string, or an :class:`Upload` for a
        file part). Raises :class:`ApiError` exactly as the fake answers.
        """
        method = self.spec.method(method_name)
        if method is None:
            raise ApiError(404, "Not Found", kind="unknown_method")
        uploads = {k: v for k, v in raw.items() if isinstance(v, Upload)}
        attached = {
            name
            for value in raw.values()
            if isinstance(value, str)
            for name in _ATTACH_RE.findall(value)
        }
        missing = sorted(attached - set(uploads))
        if missing:
            raise bad_request(
                f'file "attach://{missing[0]}" is not in the multipart request', kind="wrong_type"
            )
        params: dict[str, Any] = {}
        for name, value in raw.items():
            spec = method.fields.get(name)
            if spec is None:
                if isinstance(value, Upload) and name in attached:
                    continue  # a file part that a parameter refers to as attach://<name>
                raise bad_request(
                    f'unknown parameter "{name}": {method.name} has no such parameter '
                    "in the Bot API spec",
                    kind="unknown_parameter",
                )
            try:
                params[name] = self._decode_top(value, spec.types, name, uploads)
            except Mismatch as err:
                where = name + ("" if not err.path or err.path[0] == "[" else ".") + err.path
                raise bad_request(
                    err.description or f'parameter "{where}": {err.message}', kind=err.kind
                ) from None
        for spec in method.fields.values():
            if spec.required and spec.name not in params:
                raise bad_request(f"{spec.name} is empty", kind="missing_parameter")
        prose.method_rules(method.name, params)
        return method, params

    def _decode_top(
        self, value: str | Upload, types: tuple[str, ...], name: str, uploads: Mapping[str, Upload]
    ) -> Any:
        """Decode one form value into the first of ``types`` it fits."""
        if (
            name.endswith("chat_id")
            and types == ("Integer", "String")
            and isinstance(value, str)
            and not (_INT_RE.match(value.strip()) or value.startswith("@"))
        ):
            raise Mismatch("", f'expected Integer or "@username", got {_short(value)}')
        errors: list[tuple[str, Mismatch]] = []
        for type_name in _ordered(types, value):
            try:
                return self._decode_one(value, type_name, uploads)
            except Mismatch as err:
                errors.append((type_name, err))
        decoded: Any = value
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                decoded = json.loads(value)
        raise self._best(errors, types, decoded)

    def _decode_one(
        self, value: str | Upload, type_name: str, uploads: Mapping[str, Upload]
    ) -> Any:
        if isinstance(value, Upload):
            if type_name == "InputFile":
                return value
            raise Mismatch("", f"expected {type_name}, got a file upload")
        if type_name == "String":
            return value
        if type_name == "InputFile":
            if value.startswith("attach://") and value[len("attach://") :] not in uploads:
                raise Mismatch("", f"no multipart part named by {value!r}")
            if not value:
                raise Mismatch("", "empty file reference")
            return value
        if type_name == "Integer":
            if _INT_RE.match(value.strip()) and abs(int(value)) < _INT64:
                return int(value)
            raise Mismatch("", f"expected Integer, got {_short(value)}")
        if type_name == "Float":
            try:
                number = float(value)
            except ValueError:
                raise Mismatch("", f"expected Float, got {_short(value)}") from None
            if number != number or number in (float("inf"), float("-inf")):
                raise Mismatch("", f"expected Float, got {_short(value)}")
            return number
        if type_name == "Boolean":
            lowered = value.strip().lower()
            if lowered in ("true", "1"):
                return True
            if lowered in ("false", "0"):
                return False
            raise Mismatch("", f"expected Boolean, got {_short(value)}")
        try:
            decoded = json.loads(value)
        except ValueError:
            raise Mismatch(
                "", f"expected a JSON-serialized {type_name}, got {_short(value)}"
            ) from None
        return self.check_value(decoded, (type_name,), "")

    # -- JSON values --------------------------------------------------------------------------

    def check_value(self, value: Any, types: tuple[str, ...], path: str) -> Any:
        """Check a decoded JSON value against a union of spec types; return it."""
        errors: list[tuple[str, Mismatch]] = []
        for type_name in types:
            try:
                self._check(value, type_name, path)
                return value
            except Mismatch as err:
                errors.append((type_name, err))
        raise self._best(errors, types, value)

    def _best(
        self, errors: list[tuple[str, Mismatch]], types: tuple[str, ...], value: Any
    ) -> Mismatch:
        """Pick the most telling failure of a union. For an object, the candidate type that
        shares the most field names with it (a reply_markup with ``inline_keyboard`` and a bad
        button reports the button, not "ReplyKeyboardMarkup has no field inline_keyboard")."""
        if len(errors) == 1:
            return errors[0][1]
        if isinstance(value, dict):

            def overlap(item: tuple[str, Mismatch]) -> int:
                fields = self.spec.type_fields(item[0]) or {}
                return len(set(fields) & set(value))

            type_name, err = max(errors, key=overlap)
            if overlap((type_name, err)):
                return err
        path = errors[0][1].path
        return Mismatch(path, f"expected {' or '.join(types)}, got {_short(value)}")

    def check_object(self, type_name: str, value: Any, path: str = "") -> None:
        """Check a decoded JSON value against one type; raise :class:`ApiError` if it does
        not fit. Useful in tests to validate what the fake *answers* as well."""
        try:
            self._check(value, type_name, path)
        except Mismatch as err:
            raise bad_request(
                err.description or f'field "{err.path}": {err.message}', kind=err.kind
            ) from None

    def _check(self, value: Any, type_name: str, path: str) -> None:
        if type_name.startswith("Array of "):
            if not isinstance(value, list):
                raise Mismatch(path, f"expected {type_name}, got {_json_kind(value)}")
            inner = type_name[len("Array of ") :]
            for index, item in enumerate(value):
                self._check(item, inner, f"{path}[{index}]")
            return
        if type_name == "String" or type_name == "InputFile":
            if not isinstance(value, str):
                raise Mismatch(path, f"expected {type_name}, got {_json_kind(value)}")
            return
        if type_name == "Integer":
            if isinstance(value, bool) or not isinstance(value, int):
                raise Mismatch(path, f"expected Integer, got {_json_kind(value)}")
            return
        if type_name == "Float":
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise Mismatch(path, f"expected Float, got {_json_kind(value)}")
            return
        if type_name == "Boolean":
            if not isinstance(value, bool):
                raise Mismatch(path, f"expected Boolean, got {_json_kind(value)}")
            return
        subtypes = self.spec.subtypes(type_name)
        if subtypes:
            self._check_abstract(value, type_name, subtypes, path)
            return
        fields = self.spec.type_fields(type_name)
        if fields is None:
            raise Mismatch(path, f"type {type_name} is not in the spec")
        if not isinstance(value, dict):
            raise Mismatch(path, f"expected {type_name} object, got {_json_kind(value)}")
        for key, item in value.items():
            spec = fields.get(key)
            sub = f"{path}.{key}" if path else key
            if spec is None:
                if self.strict_objects and fields:
                    raise Mismatch(sub, f"{type_name} has no field {key!r}")
                continue
            self.check_value(item, spec.types, sub)
        for spec in fields.values():
            if spec.required and spec.name not in value:
                sub = f"{path}.{spec.name}" if path else spec.name
                raise Mismatch(sub, f"{type_name} requires field {spec.name!r}")
        prose.type_rules(type_name, value, path, self._entity_types)

    def _check_abstract(self, value: Any, type_name: str, subtypes: list[str], path: str) -> None:
        """An abstract type (``BotCommandScope``, ``ReactionType``, ``MenuButton``...): pick
        the subtype by its ``type``/``status``/``source`` discriminator."""
        if not isinstance(value, dict):
            raise Mismatch(path, f"expected {type_name} object, got {_json_kind(value)}")
        keys = {subtype: self._discriminator(subtype) for subtype in subtypes}
        for subtype, (key, expected) in keys.items():
            if key is not None and value.get(key) == expected:
                self._check(value, subtype, path)
                return
        if all(key is not None for key, _ in keys.values()):
            key = next(iter(keys.values()))[0]
            sub = f"{path}.{key}" if path else str(key)
            choices = ", ".join(repr(expected) for _, expected in keys.values())
            raise Mismatch(sub, f"not a valid {type_name}: {key} must be one of {choices}")
        errors: list[Mismatch] = []
        for subtype in subtypes:
            try:
                self._check(value, subtype, path)
                return
            except Mismatch as err:
                errors.append(err)
        raise Mismatch(path, f"not a valid {type_name} (one of {', '.join(subtypes)})")

    def _discriminator(self, subtype: str) -> tuple[str | None, str | None]:
        """The field and value that select ``subtype``, read from its description
        ("Scope type, must be chat", 'always "creator"')."""
        if subtype not in self._discriminators:
            found: tuple[str | None, str | None] = (None, None)
            fields = self.spec.type_fields(subtype) or {}
            for key in ("type", "status", "source"):
                spec = fields.get(key)
                match = _DISCRIMINATOR_RE.search(spec.description) if spec else None
                if match:
                    found = (key, match.group(1))
                    break
            self._discriminators[subtype] = found
        return self._discriminators[subtype]


def _ordered(types: tuple[str, ...], value: str | Upload) -> tuple[str, ...]:
    """Try String last for unions such as ``Integer or String`` and ``InputFile or String``:
    the decoded value should be as typed as possible."""
    if isinstance(value, Upload):
        return types
    return tuple(t for t in types if t != "String") + (("String",) if "String" in types else ())
