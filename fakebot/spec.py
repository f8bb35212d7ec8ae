"""Validation of Bot API requests against the official spec (``api.json``).

Why: the point of running the real PTB ``Application`` against a fake is to catch what
Telegram would refuse before Telegram sees it. The fake therefore checks each request the way
the Bot API server does (unknown method, unknown or missing parameter, wrong type, recursively
inside JSON objects) plus the limits the documentation only states in prose (callback_data
bytes, buttons per keyboard, command names...). Message *text* limits need entity parsing and
live in :mod:`fakebot.formatting`.

The spec is vendored next to this file (``api.json``, MIT, from
PaulSonOfLars/telegram-bot-api-spec) so the tests run from a bare clone; the environment
variable ``FAKEBOT_API_SPEC`` may point at another copy.

Wire format. PTB posts ``application/x-www-form-urlencoded`` (or multipart when uploading)
where string values are sent raw and every other value is JSON-encoded (``"123"``, ``"true"``,
``'{"inline_keyboard": ...}'``). A JSON body is normalised to the same shape (non-string
top-level values are re-encoded), as Telegram's server does, so one code path validates both.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakebot.errors import ApiError, bad_request

SPEC_PATH = Path(__file__).with_name("api.json")

#: Types whose values are not JSON objects.
PRIMITIVES = frozenset({"String", "Integer", "Float", "Boolean", "InputFile"})

#: Inline keyboard button fields that do not select the button's action.
_BUTTON_DECORATION = frozenset({"text", "icon_custom_emoji_id", "style"})

_COMMAND_RE = re.compile(r"^[a-z0-9_]{1,32}$")
_DISCRIMINATOR_RE = re.compile(r'(?:always|must be)\s+["“]?([a-z_]+)["”]?')
_QUOTED_RE = re.compile(r'["“]([a-z_]+)["”]')
_INT_RE = re.compile(r"^-?\d+$")
_ATTACH_RE = re.compile(r"attach://([A-Za-z0-9_.-]+)")
_INT64 = 2**63


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


@dataclass
class _Mismatch(Exception):
    """Internal: a value that does not fit; carries the path inside the parameter."""

    path: str
    message: str
    kind: str = "wrong_type"
    description: str | None = field(default=None)  # a full Telegram-like description


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
            except _Mismatch as err:
                where = name + ("" if not err.path or err.path[0] == "[" else ".") + err.path
                raise bad_request(
                    err.description or f'parameter "{where}": {err.message}', kind=err.kind
                ) from None
        for spec in method.fields.values():
            if spec.required and spec.name not in params:
                raise bad_request(f"{spec.name} is empty", kind="missing_parameter")
        self._method_rules(method, params)
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
            raise _Mismatch("", f'expected Integer or "@username", got {_short(value)}')
        errors: list[tuple[str, _Mismatch]] = []
        for type_name in _ordered(types, value):
            try:
                return self._decode_one(value, type_name, uploads)
            except _Mismatch as err:
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
            raise _Mismatch("", f"expected {type_name}, got a file upload")
        if type_name == "String":
            return value
        if type_name == "InputFile":
            if value.startswith("attach://") and value[len("attach://") :] not in uploads:
                raise _Mismatch("", f"no multipart part named by {value!r}")
            if not value:
                raise _Mismatch("", "empty file reference")
            return value
        if type_name == "Integer":
            if _INT_RE.match(value.strip()) and abs(int(value)) < _INT64:
                return int(value)
            raise _Mismatch("", f"expected Integer, got {_short(value)}")
        if type_name == "Float":
            try:
                number = float(value)
            except ValueError:
                raise _Mismatch("", f"expected Float, got {_short(value)}") from None
            if number != number or number in (float("inf"), float("-inf")):
                raise _Mismatch("", f"expected Float, got {_short(value)}")
            return number
        if type_name == "Boolean":
            lowered = value.strip().lower()
            if lowered in ("true", "1"):
                return True
            if lowered in ("false", "0"):
                return False
            raise _Mismatch("", f"expected Boolean, got {_short(value)}")
        try:
            decoded = json.loads(value)
        except ValueError:
            raise _Mismatch(
                "", f"expected a JSON-serialized {type_name}, got {_short(value)}"
            ) from None
        return self.check_value(decoded, (type_name,), "")

    # -- JSON values --------------------------------------------------------------------------

    def check_value(self, value: Any, types: tuple[str, ...], path: str) -> Any:
        """Check a decoded JSON value against a union of spec types; return it."""
        errors: list[tuple[str, _Mismatch]] = []
        for type_name in types:
            try:
                self._check(value, type_name, path)
                return value
            except _Mismatch as err:
                errors.append((type_name, err))
        raise self._best(errors, types, value)

    def _best(
        self, errors: list[tuple[str, _Mismatch]], types: tuple[str, ...], value: Any
    ) -> _Mismatch:
        """Pick the most telling failure of a union. For an object, the candidate type that
        shares the most field names with it (a reply_markup with ``inline_keyboard`` and a bad
        button reports the button, not "ReplyKeyboardMarkup has no field inline_keyboard")."""
        if len(errors) == 1:
            return errors[0][1]
        if isinstance(value, dict):

            def overlap(item: tuple[str, _Mismatch]) -> int:
                fields = self.spec.type_fields(item[0]) or {}
                return len(set(fields) & set(value))

            type_name, err = max(errors, key=overlap)
            if overlap((type_name, err)):
                return err
        path = errors[0][1].path
        return _Mismatch(path, f"expected {' or '.join(types)}, got {_short(value)}")

    def check_object(self, type_name: str, value: Any, path: str = "") -> None:
        """Check a decoded JSON value against one type; raise :class:`ApiError` if it does
        not fit. Useful in tests to validate what the fake *answers* as well."""
        try:
            self._check(value, type_name, path)
        except _Mismatch as err:
            raise bad_request(
                err.description or f'field "{err.path}": {err.message}', kind=err.kind
            ) from None

    def _check(self, value: Any, type_name: str, path: str) -> None:
        if type_name.startswith("Array of "):
            if not isinstance(value, list):
                raise _Mismatch(path, f"expected {type_name}, got {_json_kind(value)}")
            inner = type_name[len("Array of ") :]
            for index, item in enumerate(value):
                self._check(item, inner, f"{path}[{index}]")
            return
        if type_name == "String" or type_name == "InputFile":
            if not isinstance(value, str):
                raise _Mismatch(path, f"expected {type_name}, got {_json_kind(value)}")
            return
        if type_name == "Integer":
            if isinstance(value, bool) or not isinstance(value, int):
                raise _Mismatch(path, f"expected Integer, got {_json_kind(value)}")
            return
        if type_name == "Float":
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise _Mismatch(path, f"expected Float, got {_json_kind(value)}")
            return
        if type_name == "Boolean":
            if not isinstance(value, bool):
                raise _Mismatch(path, f"expected Boolean, got {_json_kind(value)}")
            return
        subtypes = self.spec.subtypes(type_name)
        if subtypes:
            self._check_abstract(value, type_name, subtypes, path)
            return
        fields = self.spec.type_fields(type_name)
        if fields is None:
            raise _Mismatch(path, f"type {type_name} is not in the spec")
        if not isinstance(value, dict):
            raise _Mismatch(path, f"expected {type_name} object, got {_json_kind(value)}")
        for key, item in value.items():
            spec = fields.get(key)
            sub = f"{path}.{key}" if path else key
            if spec is None:
                if self.strict_objects and fields:
                    raise _Mismatch(sub, f"{type_name} has no field {key!r}")
                continue
            self.check_value(item, spec.types, sub)
        for spec in fields.values():
            if spec.required and spec.name not in value:
                sub = f"{path}.{spec.name}" if path else spec.name
                raise _Mismatch(sub, f"{type_name} requires field {spec.name!r}")
        self._type_rules(type_name, value, path)

    def _check_abstract(self, value: Any, type_name: str, subtypes: list[str], path: str) -> None:
        """An abstract type (``BotCommandScope``, ``ReactionType``, ``MenuButton``...): pick
        the subtype by its ``type``/``status``/``source`` discriminator."""
        if not isinstance(value, dict):
            raise _Mismatch(path, f"expected {type_name} object, got {_json_kind(value)}")
        keys = {subtype: self._discriminator(subtype) for subtype in subtypes}
        for subtype, (key, expected) in keys.items():
            if key is not None and value.get(key) == expected:
                self._check(value, subtype, path)
                return
        if all(key is not None for key, _ in keys.values()):
            key = next(iter(keys.values()))[0]
            sub = f"{path}.{key}" if path else str(key)
            choices = ", ".join(repr(expected) for _, expected in keys.values())
            raise _Mismatch(sub, f"not a valid {type_name}: {key} must be one of {choices}")
        errors: list[_Mismatch] = []
        for subtype in subtypes:
            try:
                self._check(value, subtype, path)
                return
            except _Mismatch as err:
                errors.append(err)
        raise _Mismatch(path, f"not a valid {type_name} (one of {', '.join(subtypes)})")

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

    # -- the prose of the documentation ---------------------------------------------------------

    def _type_rules(self, type_name: str, value: dict[str, Any], path: str) -> None:
        """Limits the documentation states in prose for object types."""
        if type_name == "InlineKeyboardButton":
            _check_button(value, path)
        elif type_name == "InlineKeyboardMarkup":
            count = sum(len(row) for row in value["inline_keyboard"])
            if count > 100:
                raise _Mismatch(
                    path,
                    "",
                    kind="prose_limit",
                    description=f"reply markup is too long: {count} buttons, at most 100",
                )
        elif type_name == "BotCommand":
            if not _COMMAND_RE.match(value["command"]):
                raise _Mismatch(
                    path,
                    "",
                    kind="prose_limit",
                    description=f"BOT_COMMAND_INVALID: {value['command']!r} (1-32 characters, "
                    "lowercase English letters, digits and underscores)",
                )
            if not 1 <= len(value["description"]) <= 256:
                raise _Mismatch(
                    path,
                    "",
                    kind="prose_limit",
                    description="BOT_COMMAND_DESCRIPTION_INVALID: a command description has "
                    "1-256 characters",
                )
        elif type_name == "MessageEntity":
            allowed = self._entity_types
            if allowed and value["type"] not in allowed:
                raise _Mismatch(
                    f"{path}.type" if path else "type",
                    f"unknown entity type {value['type']!r}",
                )
            if value["offset"] < 0 or value["length"] < 0:
                raise _Mismatch(path, "entity offset and length must not be negative")

    def _method_rules(self, method: MethodSpec, params: dict[str, Any]) -> None:
        """Limits the documentation states in prose for method parameters (text limits need
        entity parsing and are checked by the server)."""
        if method.name == "setMyCommands" and len(params["commands"]) > 100:
            raise bad_request("too many commands: at most 100", kind="prose_limit")
        if method.name == "getUpdates" and "limit" in params and not 1 <= params["limit"] <= 100:
            raise bad_request("limit must be between 1 and 100", kind="prose_limit")
        if method.name == "sendChatAction" and params["action"] not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request", kind="prose_limit")


CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)


def _check_button(button: dict[str, Any], path: str) -> None:
    if not button["text"]:
        raise _Mismatch(path, "", kind="prose_limit", description="BUTTON_TEXT_INVALID: empty")
    actions = [k for k in button if k not in _BUTTON_DECORATION]
    if not actions:
        raise _Mismatch(
            path,
            "",
            kind="prose_limit",
            description="can't parse inline keyboard button: Text buttons are unallowed in the "
            f"inline keyboard (button {button['text']!r} at {path or 'top'})",
        )
    if len(actions) > 1:
        raise _Mismatch(
            path,
            "",
            kind="prose_limit",
            description=f"can't parse inline keyboard button: exactly one of the optional fields "
            f"must be used, got {', '.join(sorted(actions))} (button {button['text']!r})",
        )
    data = button.get("callback_data")
    if data is not None and not 1 <= len(data.encode("utf-8")) <= 64:
        raise _Mismatch(
            path,
            "",
            kind="prose_limit",
            description=f"BUTTON_DATA_INVALID: callback_data must be 1-64 bytes, "
            f"{data!r} is {len(data.encode('utf-8'))} (button {button['text']!r})",
        )
    url = button.get("url")
    if url is not None and not _valid_button_url(url):
        raise _Mismatch(
            path,
            "",
            kind="prose_limit",
            description=f"inline keyboard button URL {url!r} is invalid: Wrong HTTP URL",
        )


def _valid_button_url(url: str) -> bool:
    if not url or any(c.isspace() for c in url):
        return False
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://(.*)$", url)
    if match:
        scheme, rest = match.group(1).lower(), match.group(2)
        return scheme in ("http", "https", "tg") and bool(rest)
    return "." in url.split("/", 1)[0]  # "t.me/bot": Telegram adds the scheme


def _ordered(types: tuple[str, ...], value: str | Upload) -> tuple[str, ...]:
    """Try String last for unions such as ``Integer or String`` and ``InputFile or String``:
    the decoded value should be as typed as possible."""
    if isinstance(value, Upload):
        return types
    return tuple(t for t in types if t != "String") + (("String",) if "String" in types else ())
