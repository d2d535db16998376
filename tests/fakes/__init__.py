"""Test doubles for external services (no real network beyond 127.0.0.1)."""

from tests.fakes.telegram_api import (
    ApiError,
    Call,
    FakeCallback,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
    Fault,
    Version,
    close_session_fast,
    make_bot,
    run_polling,
)

__all__ = [
    "ApiError",
    "Call",
    "FakeCallback",
    "FakeChat",
    "FakeMessage",
    "FakeTelegram",
    "FakeUser",
    "Fault",
    "Version",
    "close_session_fast",
    "make_bot",
    "run_polling",
]
