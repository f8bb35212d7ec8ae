"""Entity parsing of message text, the way the Bot API does it (HTML: the bot sends nothing else).

Why: Telegram counts the 1-4096 characters of a message *after* entity parsing, stores the
plain text plus entities, and refuses malformed markup with
``400 Bad Request: can't parse entities: ...``. A bot that builds HTML from player names or
card symbols must escape them; the fake catches the ones that forget, and stores exactly the
text a user would see so tests can assert on it.

The parsers follow tdlib's (``td/telegram/MessageEntity.cpp``) closely enough for a bot's
needs: the supported tags and attributes, the four named HTML entities plus numeric ones,
and the error messages with UTF-8 byte offsets. Entity
offsets and lengths are in UTF-16 code units, as in the Bot API. Leading and trailing
whitespace is trimmed from the result, as Telegram does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class EntityParseError(ValueError):
    """Malformed markup; the message is Telegram's text after "can't parse entities: "."""


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: the unit of entity offsets (emoji and rare CJK count 2)."""
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


@dataclass
class _Builder:
    """Accumulates plain text and tracks its UTF-16 length as it grows."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    entities: list[dict[str, Any]] = field(default_factory=list)

    def add(self, chunk: str) -> None:
        self.parts.append(chunk)
        self.length += utf16_len(chunk)

    def entity(self, kind: str, start: int, **extra: Any) -> None:
        if self.length > start:
            self.entities.append({"type": kind, "offset": start, "length": self.length - start})
            self.entities[-1].update({k: v for k, v in extra.items() if v is not None})

    def result(self) -> tuple[str, list[dict[str, Any]]]:
        return trim("".join(self.parts), self.entities)


def parse(text: str, parse_mode: str | None) -> tuple[str, list[dict[str, Any]]]:
    """Parse ``text`` in ``parse_mode`` (None: plain). Returns (plain text, entities)."""
    if parse_mode is None or parse_mode == "":
        return trim(text, [])
    mode = parse_mode.lower()
    if mode == "html":
        return parse_html(text)
    # The bot sends HTML only; Markdown (either kind) is not implemented by this fake.
    raise ValueError(f"unsupported parse_mode {parse_mode!r} (this fake parses HTML only)")


def trim(text: str, entities: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Strip leading/trailing whitespace like Telegram and clip entities to what is left."""
    stripped = text.lstrip()
    lead = utf16_len(text[: len(text) - len(stripped)])
    stripped = stripped.rstrip()
    total = utf16_len(stripped)
    out: list[dict[str, Any]] = []
    for entity in entities:
        start = max(entity["offset"] - lead, 0)
        end = min(entity["offset"] + entity["length"] - lead, total)
        if end > start:
            out.append({**entity, "offset": start, "length": end - start})
    out.sort(key=lambda e: (e["offset"], -e["length"]))
    return stripped, out


# -- HTML -------------------------------------------------------------------------------------

_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
    "tg-time": "date_time",
}
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def _decode_entity(text: str, i: int) -> tuple[str | None, int]:
    """Decode ``&name;`` / ``&#NN;`` / ``&#xHH;`` at ``i``; (None, i) if it is not one."""
    end = text.find(";", i + 1, i + 12)
    if end == -1:
        return None, i
    body = text[i + 1 : end]
    if body in _NAMED:
        return _NAMED[body], end + 1
    if body.startswith("#"):
        digits = body[1:]
        try:
            code = int(digits[1:], 16) if digits[:1] in ("x", "X") else int(digits, 10)
        except ValueError:
            return None, i
        if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
            return chr(code), end + 1
    return None, i


def _decode_all(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "&":
            decoded, j = _decode_entity(text, i)
            if decoded is not None:
                out.append(decoded)
                i = j
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


@dataclass
class _Open:
    tag: str
    attrs: dict[str, str]
    start: int
    byte: int
    language: str | None = None


def parse_html(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Parse Telegram's HTML subset. Raises :class:`EntityParseError` like the Bot API."""
    out = _Builder()
    stack: list[_Open] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "&":
            decoded, j = _decode_entity(text, i)
            out.add(decoded if decoded is not None else "&")
            i = j if decoded is not None else i + 1
            continue
        if char != "<":
            j = i
            while j < n and text[j] not in "<&":
                j += 1
            out.add(text[i:j])
            i = j
            continue
        begin = i
        if i + 1 < n and text[i + 1] == "/":
            j = text.find(">", i)
            if j == -1:
                raise EntityParseError(
                    f"Unclosed end tag at byte offset {_byte_offset(text, begin)}"
                )
            name = text[i + 2 : j].strip().lower()
            if not stack:
                raise EntityParseError(
                    f"Unexpected end tag at byte offset {_byte_offset(text, begin)}"
                )
            top = stack[-1]
            if name != top.tag:
                raise EntityParseError(
                    f"Unmatched end tag at byte offset {_byte_offset(text, begin)}, "
                    f'expected "</{top.tag}>", found "</{name}>"'
                )
            stack.pop()
            _close_html(out, top, stack)
            i = j + 1
            continue
        j = i + 1
        while j < n and not text[j].isspace() and text[j] not in ">/":
            j += 1
        name = text[i + 1 : j].lower()
        if name not in _HTML_TAGS:
            raise EntityParseError(
                f'Unsupported start tag "{name}" at byte offset {_byte_offset(text, begin)}'
            )
        attrs, j = _html_attrs(text, j, name, begin)
        if name == "span" and attrs.get("class") != "tg-spoiler":
            raise EntityParseError(
                f'Tag "span" must have class "tg-spoiler" at byte offset '
                f"{_byte_offset(text, begin)}"
            )
        stack.append(_Open(name, attrs, out.length, _byte_offset(text, begin)))
        i = j
    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    return out.result()


def _html_attrs(text: str, j: int, tag: str, begin: int) -> tuple[dict[str, str], int]:
    """Read attributes up to and including ``>``; return them and the index after ``>``."""
    n = len(text)
    attrs: dict[str, str] = {}
    while True:
        while j < n and text[j].isspace():
            j += 1
        if j >= n:
            raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(text, begin)}")
        if text[j] == ">":
            return attrs, j + 1
        if text[j] == "/" and j + 1 < n and text[j + 1] == ">":
            raise EntityParseError(
                f'Unsupported self-closing tag "{tag}" at byte offset {_byte_offset(text, begin)}'
            )
        start = j
        while j < n and (text[j].isalnum() or text[j] in "-_"):
            j += 1
        name = text[start:j].lower()
        if not name:
            raise EntityParseError(
                f'Empty attribute name in the tag "{tag}" at byte offset '
                f"{_byte_offset(text, begin)}"
            )
        while j < n and text[j].isspace():
            j += 1
        if j >= n or text[j] != "=":
            attrs[name] = ""
            continue
        j += 1
        while j < n and text[j].isspace():
            j += 1
        if j < n and text[j] in "'\"":
            quote = text[j]
            end = text.find(quote, j + 1)
            if end == -1:
                raise EntityParseError(
                    f"Unclosed start tag at byte offset {_byte_offset(text, begin)}"
                )
            attrs[name] = _decode_all(text[j + 1 : end])
            j = end + 1
        else:
            start = j
            while j < n and not text[j].isspace() and text[j] != ">":
                j += 1
            attrs[name] = _decode_all(text[start:j])


def _close_html(out: _Builder, top: _Open, stack: list[_Open]) -> None:
    kind = _HTML_TAGS[top.tag]
    if kind == "text_link":
        href = top.attrs.get("href", "")
        if href:
            out.entity("text_link", top.start, url=href)
        return
    if kind == "code" and stack and stack[-1].tag == "pre" and stack[-1].start == top.start:
        language = top.attrs.get("class", "")
        if language.startswith("language-"):
            stack[-1].language = language[len("language-") :]
            return
    if kind == "pre":
        out.entity("pre", top.start, language=top.language)
        return
    if kind == "blockquote" and "expandable" in top.attrs:
        out.entity("expandable_blockquote", top.start)
        return
    if kind == "custom_emoji":
        out.entity("custom_emoji", top.start, custom_emoji_id=top.attrs.get("emoji-id"))
        return
    if kind == "date_time":
        unix = top.attrs.get("unix")
        out.entity(
            "date_time",
            top.start,
            unix_time=int(unix) if unix and unix.lstrip("-").isdigit() else None,
            date_time_format=top.attrs.get("format"),
        )
        return
    out.entity(kind, top.start)
