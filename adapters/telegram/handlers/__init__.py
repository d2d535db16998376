"""The adapter's routers, one per concern (aiogram's multi-file layout): the private chat
first (its own meaning of /newgame and /cancel), then the lobby, play, and words-only
commands; a last router answers any button nobody knows."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery
from aiogram.utils.callback_answer import CallbackAnswer

from adapters.common.render import Text
from adapters.telegram.handlers import community, history, lobby, play, private, stats, tournament


async def unknown_button(query: CallbackQuery, t: Text, callback_answer: CallbackAnswer) -> None:
    """A button of an older version of the bot, or forged data: said, and nothing changes."""
    callback_answer.text = t.reason("bad_token")
    callback_answer.show_alert = True


def build_router() -> Router:
    root = Router(name=__name__)
    root.include_routers(
        private.router(),
        lobby.router(),
        play.router(),
        stats.router(),
        tournament.router(),
        history.router(),
        community.router(),
    )
    fallback = Router(name=f"{__name__}.fallback")
    fallback.callback_query.register(unknown_button)
    root.include_router(fallback)
    return root
