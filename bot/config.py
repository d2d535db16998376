"""Settings from the environment (pydantic-settings). A bad setting stops start-up with one line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    redis_url: str | None = Field(None, description="Redis server; unset = embedded Redis")
    redis_cluster: bool = Field(False, description="REDIS_URL names a Redis Cluster node")
    data_dir: Path = Field(Path("data"), description="embedded Redis data and AOF")
    turn_seconds: float = Field(60.0, gt=0, description="time for a person's move")
    bot_delay_seconds: float = Field(1.0, ge=0, description="pause before a computer move")
    missed_turns_to_bot: int = Field(2, ge=1, description="missed turns before a bot takes over")
    search_ms: float = Field(300.0, gt=0, description="a hard computer player's time a move, ms")
    search_workers: int = Field(
        2, ge=0, le=64, description="processes hard computer players think in; 0: a thread"
    )
    search_iterations: int | None = Field(
        None, gt=0, description="playouts a hard move (exact for a seed); unset: SEARCH_MS"
    )
    idle_seconds: int = Field(6 * 3600, gt=0, description="lobby/finished rooms expire after")
    update_ttl_seconds: int = Field(24 * 3600, gt=0, description="how long update ids are kept")
    default_language: str = Field("ru", description="language of a new chat")
    bot_token: str | None = Field(None, description="Telegram bot token")
    telegram_api_url: str | None = Field(None, description="self-hosted Bot API server")
    webhook_url: str | None = Field(None, description="Telegram webhook mode when set")
    webhook_secret: str | None = Field(None, description="secret token header for webhooks")
    webhook_host: str = "0.0.0.0"
    webhook_port: int = Field(8080, gt=0, lt=65536)
    webapp_name: str | None = Field(
        None, description="the Mini App's short name in BotFather; unset: no web table button in groups"
    )
    webapp_url: str | None = Field(
        None, description="the public https URL of the web table (BotFather's Mini App URL)"
    )
    webapp_host: str = Field("127.0.0.1", description="where the web table server listens")
    webapp_port: int = Field(8081, gt=0, lt=65536, description="the web table server's port")
    webapp_auth_seconds: int = Field(24 * 3600, gt=0, description="how old Telegram's signed initData may be")
    discord_token: str | None = Field(None, description="Discord bot token")
    discord_shard_count: int | None = Field(
        None, gt=0, description="shards in all (several processes split them); unset: Discord's"
    )
    discord_shard_ids: list[int] | None = Field(
        None, description="the shards this process runs (JSON list, e.g. [0,1]); unset: all"
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "WARNING", description="how much the bot logs"
    )
    log_format: Literal["text", "json"] = Field("text", description="json: one JSON object a line")
    metrics_port: int | None = Field(
        None, gt=0, lt=65536, description="serve Prometheus metrics on this port"
    )
    metrics_host: str = Field(
        "127.0.0.1", description="the address metrics are served on (0.0.0.0: every interface)"
    )
    allow_eviction: bool = Field(
        False, description="start even when Redis may evict keys (rooms would vanish under memory pressure)"
    )
    heartbeat_file: Path = Field(
        Path("/tmp/kozel-bot.heartbeat"), description="touched by the running bot; read by `health`"
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, v: object) -> object:
        return v.upper() if isinstance(v, str) else v

    @field_validator("webapp_name")
    @classmethod
    def _app_name(cls, v: str | None) -> str | None:
        # BotFather's short names: 3-30 letters, digits and underscores
        if v is not None and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", v):
            raise ValueError("must be the Mini App's short name: 3-30 letters, digits or _")
        return v

    @field_validator("webapp_url")
    @classmethod
    def _app_url(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"https?://[^\s?#]+", v):
            raise ValueError("must be an http(s) URL without a query")
        return v

    @field_validator("default_language")
    @classmethod
    def _known_language(cls, v: str) -> str:
        if v not in ("ru", "en", "uk", "hr"):
            raise ValueError("must be ru, en, uk or hr")
        return v


class ConfigError(RuntimeError):
    """A setting is missing or wrong: the message is one line for the operator."""


def load_settings(**overrides: object) -> Settings:
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as e:
        err = e.errors()[0]
        name = ".".join(str(p) for p in err["loc"]).upper()
        raise ConfigError(f"bad setting {name}: {err['msg']}") from None
