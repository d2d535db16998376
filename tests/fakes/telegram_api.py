"""The old import path of the fake Bot API (now the package ``tests.fakes.telegram``), kept
for ``bench/startup.py``, which lives outside ``tests/``; tests import the package."""

from tests.fakes.telegram import (
    DEFAULT_TOKEN,
    ApiError,
    Call,
    FakeCallback,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
    Fault,
    FloodLimit,
    Version,
    close_session_fast,
    make_bot,
    run_polling,
)

__all__ = [
    "DEFAULT_TOKEN",
    "ApiError",
    "Call",
    "FakeCallback",
    "FakeChat",
    "FakeMessage",
    "FakeTelegram",
    "FakeUser",
    "Fault",
    "FloodLimit",
    "Version",
    "close_session_fast",
    "make_bot",
    "run_polling",
]
