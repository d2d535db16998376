"""The platform's limits and the test's injected failures: what makes a call fail before
its responder runs (a ``Fault`` the test asked for, Telegram's flood limit for groups)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from tests.fakes.telegram.model import ApiError, Params
from tests.fakes.telegram.validation import ephemeral_parameters, optional_int_or_none


@dataclass
class Fault:
    method: str  # lower-case method name or "*"
    remaining: int
    error_code: int
    description: str
    retry_after: int | None = None
    migrate_to_chat_id: int | None = None
    when: Callable[[Params], bool] | None = None

    def matches(self, method: str, params: Params) -> bool:
        if self.remaining <= 0:
            return False
        if self.method not in ("*", method.lower()):
            return False
        return self.when is None or bool(self.when(params))

    def error(self) -> ApiError:
        return ApiError(
            self.error_code,
            self.description,
            retry_after=self.retry_after,
            migrate_to_chat_id=self.migrate_to_chat_id,
        )


DEFAULT_DESCRIPTIONS = {
    400: "Bad Request: injected failure",
    401: "Unauthorized",
    403: "Forbidden: injected failure",
    404: "Not Found",
    409: "Conflict: injected failure",
    500: "Internal Server Error: injected failure",
}


class FloodLimit:
    """Telegram's limit on a bot's writes to one group: at most ``per_window`` in any
    ``window`` seconds; past it 429 ``Too Many Requests: retry after N``, N being the
    seconds until the oldest write leaves the window."""

    def __init__(self, per_window: int, window: float) -> None:
        self.per_window = per_window
        self.window = window
        self.writes: dict[int, list[float]] = {}
        self.refused: list[tuple[int, float]] = []  # (chat, when) of every 429 given

    def _recent(self, chat: int, now: float) -> list[float]:
        kept = [t for t in self.writes.get(chat, []) if t > now - self.window]
        self.writes[chat] = kept
        return kept

    def check(self, chat: int, now: float) -> None:
        recent = self._recent(chat, now)
        if len(recent) >= self.per_window:
            self.refused.append((chat, now))
            wait = max(1, math.ceil(recent[0] + self.window - now))
            raise ApiError(429, f"Too Many Requests: retry after {wait}", retry_after=wait)

    def record(self, chat: int, now: float) -> None:
        self.writes.setdefault(chat, []).append(now)


class Limits:
    """Injected faults (``fail_next`` & co) and the group flood limit (``limit_group_writes``),
    with every group write that went through (``group_writes``)."""

    def __init__(self) -> None:
        self.faults: list[Fault] = []
        self.flood: FloodLimit | None = None
        # group-visible writes that succeeded, per group: the fake's clock at each
        self.group_writes: dict[int, list[float]] = {}

    def fail_next(
        self,
        method: str,
        *,
        times: int = 1,
        error_code: int = 400,
        description: str | None = None,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        when: Callable[[Params], bool] | None = None,
    ) -> Fault:
        """Make the next ``times`` calls of ``method`` (``"*"``: any) matching ``when`` fail."""
        if retry_after is not None and error_code == 400:
            error_code = 429
        if description is None:
            if error_code == 429:
                description = f"Too Many Requests: retry after {retry_after or 1}"
            else:
                description = DEFAULT_DESCRIPTIONS.get(error_code, f"Error {error_code}")
        if error_code == 429 and retry_after is None:
            retry_after = 1
        fault = Fault(
            method=method if method == "*" else method.lower(),
            remaining=times,
            error_code=error_code,
            description=description,
            retry_after=retry_after,
            migrate_to_chat_id=migrate_to_chat_id,
            when=when,
        )
        self.faults.append(fault)
        return fault

    def fail_retry_after(
        self,
        method: str,
        retry_after: int,
        *,
        times: int = 1,
        when: Callable[[Params], bool] | None = None,
    ) -> Fault:
        """429 ``Too Many Requests: retry after K`` -> aiogram ``TelegramRetryAfter``."""
        return self.fail_next(method, times=times, error_code=429, retry_after=retry_after, when=when)

    def fail_ephemeral_send(
        self,
        *,
        times: int = 1,
        error_code: int = 400,
        description: str = "Bad Request: ephemeral message can't be sent",
        receiver_user_id: int | None = None,
    ) -> Fault:
        """The next sendMessage calls carrying ephemeral parameters fail (wording is fake)."""

        def is_ephemeral(params: Params) -> bool:
            eph = ephemeral_parameters(params)
            if eph is None:
                return False
            return receiver_user_id is None or eph.get("receiver_user_id") == receiver_user_id

        return self.fail_next(
            "sendMessage",
            times=times,
            error_code=error_code,
            description=description,
            when=is_ephemeral,
        )

    def clear_faults(self) -> None:
        self.faults.clear()

    def limit_group_writes(self, per_window: int = 20, window: float = 60.0) -> FloodLimit:
        """Enforce Telegram's group flood limit from now on (see ``FloodLimit``)."""
        self.flood = FloodLimit(per_window, window)
        return self.flood

    def refuse(self, method: str, params: Params) -> None:
        """Raise the first injected fault that matches the call (and use it up)."""
        for fault in self.faults:
            if fault.matches(method, params):
                fault.remaining -= 1
                raise fault.error()

    def check(self, group: int | None, now: float) -> None:
        """429 if a write to ``group`` would pass the flood limit."""
        if group is not None and self.flood is not None:
            self.flood.check(group, now)

    def record(self, group: int | None, now: float) -> None:
        """A write to ``group`` went through."""
        if group is None:
            return
        self.group_writes.setdefault(group, []).append(now)
        if self.flood is not None:
            self.flood.record(group, now)

    @staticmethod
    def group_write(method: str, params: Params) -> int | None:
        """The group a call writes to where everyone sees it (sends and edits of ordinary
        messages); None for ephemeral messages, private chats, reads and answers."""
        if method.lower() not in ("sendmessage", "sendphoto", "editmessagetext", "editmessagereplymarkup"):
            return None
        if ephemeral_parameters(params) is not None:
            return None
        chat = optional_int_or_none(params.get("chat_id"))
        if chat is None or chat >= 0:
            return None
        return chat
