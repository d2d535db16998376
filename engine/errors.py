"""Errors the engine raises at its edges."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action that the rules do not allow now. ``code`` is a stable reason key."""

    def __init__(self, code: str, message: str | None = None) -> None:
        super().__init__(message or code)
        self.code = code
