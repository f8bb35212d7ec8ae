"""Settings, read with pydantic-settings from the environment or a ``.env`` file."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: what @BotFather hands out: the bot's id, a colon, and a secret of letters, digits, - and _
_TOKEN = re.compile(r"[0-9]+:[A-Za-z0-9_-]+")
#: what Telegram accepts as a webhook's secret token
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


class Settings(BaseSettings):
    """Everything the bot can be configured with. Only the token is required."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    telegram_bot_token: SecretStr = Field(
        ..., description="The token from @BotFather (required to run the bot)."
    )
    telegram_api_base_url: str | None = Field(
        None,
        description="Bot API base URL, e.g. http://127.0.0.1:8081/bot for a local Bot API "
        "server; default Telegram's.",
    )
    database_path: str = Field(
        "cardbot.sqlite3", description="The SQLite database file (when DATABASE_URL is unset)."
    )
    database_url: str | None = Field(
        None,
        description="Where the database is: sqlite:///path/to/file.sqlite3, or "
        "postgresql://user:password@host:5432/name for PostgreSQL (several instances, one "
        "active); unset: the SQLite file DATABASE_PATH.",
    )
    turn_seconds: float = Field(45.0, gt=0, description="Time for one turn before auto-play.")
    reveal_seconds: float = Field(30.0, gt=0, description="Time for a 亮王 decision.")
    computer_delay: float = Field(
        1.2, ge=0, description="Seconds a computer player waits before playing (human pace)."
    )
    auto_pass: bool = Field(
        True,
        description="双扣: a player with nothing that beats the table passes without being "
        "asked (要不起), after the computer delay.",
    )
    default_language: Literal["zh", "en"] = "zh"
    min_game_seconds: float = Field(
        60.0, ge=0, description="Games shorter than this change no score (anti-farming)."
    )
    group_messages_per_minute: int = Field(20, gt=0, description="Telegram's group limit.")
    overall_messages_per_second: float = Field(30.0, gt=0)
    private_messages_per_second: float = Field(
        1.0, gt=0, description="Telegram's pace per private chat (sends and edits)."
    )
    private_burst: int = Field(3, ge=1, description="Messages a private chat takes at once.")
    user_actions_per_second: float = Field(
        5.0, gt=0, description="Per-user throttle for button presses and typed plays."
    )
    group_commands_per_minute: float = Field(
        10.0, gt=0, description="Commands taken from one group per minute, after a burst."
    )
    group_command_burst: int = Field(5, ge=1, description="Commands a group may send at once.")
    member_cache_seconds: float = Field(
        600.0, ge=0, description="Seconds a user's membership of a group is believed."
    )
    nonmember_cache_seconds: float = Field(
        60.0, ge=0, description="Seconds 'not a member' is believed before Telegram is asked again."
    )
    admin_cache_seconds: float = Field(
        30.0, ge=0, description="Seconds a user's admin rights are believed (0: ask every time)."
    )
    member_lookups_per_second: float = Field(
        3.0, gt=0, description="getChatMember calls for membership, in a budget of their own."
    )
    member_lookup_burst: int = Field(10, ge=1, description="Membership lookups at once.")
    member_cache_size: int = Field(
        50_000, ge=1, description="(group, user) answers kept; the least recently used go."
    )
    telegram_read_timeout: float = Field(
        15.0,
        gt=0,
        description="Seconds to wait for Telegram's answer to a request (not polls). A send "
        "that times out is not sent again, so this is generous.",
    )
    webhook_url: str | None = Field(
        None,
        description="Public HTTPS URL Telegram posts updates to (e.g. https://bot.example/tg): "
        "set it to use webhook mode. The bot serves the same path.",
    )
    webhook_listen: str = Field("0.0.0.0", description="Address the webhook server binds.")
    webhook_port: int = Field(8443, gt=0, lt=65536, description="Port it listens on.")
    webhook_secret: SecretStr | None = Field(
        None,
        description="Secret Telegram sends with each update (A-Z a-z 0-9 _ -, up to 256); "
        "made anew at each start when unset.",
    )

    webapp_url: str | None = Field(
        None,
        description="Public HTTPS address of the web table (the Mini App), e.g. "
        "https://cards.example/ : set it to serve the table and add 🃏 牌桌 buttons.",
    )
    web_listen: str = Field("0.0.0.0", description="Address the web table's server binds.")
    web_port: int = Field(8080, ge=0, lt=65536, description="Port it listens on (0: any).")
    metrics_port: int | None = Field(
        None, ge=0, lt=65536,
        description="Port of the Prometheus metrics and /healthz (unset: no metrics server).",
    )
    metrics_listen: str = Field("127.0.0.1", description="Address the metrics server binds.")
    miniapp_short_name: str | None = Field(
        None,
        description="The Mini App's short name from @BotFather /newapp: the group's table "
        "message then links to t.me/<bot>/<name>?startapp=g<game> for spectators.",
    )
    webapp_auth_max_age: float = Field(
        86400.0, gt=0, description="Seconds a Mini App's initData stays good."
    )
    web_max_connections: int = Field(
        512,
        ge=1,
        description="Open connections the web server takes at once; one more is closed at "
        "once. Well under the usual 1,024 open files, so Telegram's keep theirs.",
    )
    web_header_timeout: float = Field(
        10.0,
        gt=0,
        description="Seconds a connection has to send a whole request head, from opening or "
        "from its previous answer (idle keep-alive connections close then too).",
    )
    web_body_timeout: float = Field(
        20.0, gt=0, description="Seconds a request has to send its body; then 408."
    )
    web_sockets_per_user: int = Field(
        4, ge=1, description="Live pages (WebSockets) one user may hold open at once."
    )
    web_sockets_per_game: int = Field(
        64, ge=1, description="Live pages (WebSockets) open on one game at once."
    )
    log_repeat_seconds: float = Field(
        60.0,
        gt=0,
        description="A warning or error repeated within this many seconds is logged once, "
        "with a count of the repeats left out.",
    )

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str | None) -> str | None:
        # The value may hold a password: the message names the scheme only.
        if value is None or value.startswith(("sqlite:", "postgresql://", "postgres://")):
            return value
        scheme = value.split("://", 1)[0] if "://" in value else "(none)"
        raise ValueError(
            f"unknown scheme {scheme!r}: use sqlite:///path or postgresql://user:pw@host/name"
        )

    @property
    def database(self) -> str:
        """Where the database is: DATABASE_URL, else the SQLite file DATABASE_PATH."""
        return self.database_url or self.database_path

    @property
    def database_setting(self) -> str:
        """The setting that named the database, for messages."""
        return "DATABASE_URL" if self.database_url else "DATABASE_PATH"

    @field_validator("webhook_url", "webapp_url")
    @classmethod
    def _https(cls, value: str | None) -> str | None:
        # Telegram posts updates, and opens Mini Apps, only over HTTPS
        if value and not value.startswith("https://"):
            raise ValueError("must be an https:// URL (Telegram uses only HTTPS)")
        return value or None

    @field_validator("miniapp_short_name")
    @classmethod
    def _short_name(cls, value: str | None) -> str | None:
        if value and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", value):
            raise ValueError("must be 3-30 of A-Z a-z 0-9 _ (as @BotFather made it)")
        return value or None

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shaped(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not _SECRET.fullmatch(value.get_secret_value()):
            raise ValueError("may hold only A-Z a-z 0-9 _ - (1 to 256 of them)")
        return value
    log_level: str = "INFO"

    @field_validator("telegram_bot_token")
    @classmethod
    def _token_shaped(cls, value: SecretStr) -> SecretStr:
        # A token pasted with a newline or spaces around it is the token: only they go. The
        # message never repeats the value (it is a secret).
        token = value.get_secret_value().strip()
        if not token:
            raise ValueError("is empty")
        if not _TOKEN.fullmatch(token):
            raise ValueError("does not look like a token from @BotFather (digits:letters)")
        return SecretStr(token)

    @property
    def token(self) -> str:
        return self.telegram_bot_token.get_secret_value()
