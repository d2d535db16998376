"""Logging as an operator wants it: ``LOG_LEVEL``, JSON lines with ``LOG_FORMAT=json``, the
room and the platform update of the moment on every line, and no secret ever written.

The room and update ids ride in context variables: the service sets them for the call it
serves, so every line logged on the way (ours or a library's) carries them.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import sys
from collections.abc import Iterable, Iterator

ROOM: contextvars.ContextVar[str | None] = contextvars.ContextVar("room", default=None)
UPDATE: contextvars.ContextVar[str | None] = contextvars.ContextVar("update", default=None)


@contextlib.contextmanager
def context(room: str | None, update: str | None) -> Iterator[None]:
    """Lines logged inside name this room and update (an adapter's handling of an update,
    before and after the service's calls, which set them too)."""
    room_token, update_token = ROOM.set(room), UPDATE.set(update)
    try:
        yield
    finally:
        ROOM.reset(room_token)
        UPDATE.reset(update_token)


class Context(logging.Filter):
    """Adds ``room`` and ``update`` to every record (None outside a call)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.room = ROOM.get()
        record.update = UPDATE.get()
        return True


# the password (and user) in a URL: redis://user:pass@host -> redis://***@host
_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")
# Discord's interaction and webhook tokens ride in request paths that discord.py logs at
# DEBUG: /interactions/<id>/<token>/callback, /webhooks/<app id>/<token>/messages/...
_DISCORD_TOKEN = re.compile(r"(/(?:interactions|webhooks)/[0-9]+/)[A-Za-z0-9_\-.]+")


def mask_url(url: str) -> str:
    """A URL fit to print: no user name or password in it."""
    return _USERINFO.sub("***@", url)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` without the given secrets, URL passwords and Discord interaction tokens."""
    for s in secrets:
        text = text.replace(s, "***")
    text = _USERINFO.sub("***@", text)
    return _DISCORD_TOKEN.sub(r"\1***", text)


class Redacting(logging.Formatter):
    """Formats with ``inner``, then replaces secrets (bot tokens: aiogram's request URLs hold
    the Telegram token), passwords in URLs and Discord's interaction tokens in the whole
    line, tracebacks included, wherever it comes from."""

    def __init__(self, inner: logging.Formatter, secrets: Iterable[str]) -> None:
        super().__init__()
        self.inner = inner
        self.secrets = [s for s in secrets if s and len(s) >= 6]

    def format(self, record: logging.LogRecord) -> str:
        return redact(self.inner.format(record), self.secrets)


def setup(level: str = "WARNING", fmt: str = "text", secrets: Iterable[str] = ()) -> None:
    """The root logger for a process of the bot: one handler to stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(Context())
    inner: logging.Formatter
    if fmt == "json":
        from pythonjsonlogger.json import JsonFormatter

        inner = JsonFormatter(
            "%(asctime)s %(levelname)s %(name)s %(message)s %(room)s %(update)s",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
    else:
        inner = logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(room)s %(update)s] %(message)s")
    handler.setFormatter(Redacting(inner, secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
