"""/history in Discord (issue 36.4): the channel's last ended matches, each with a replay
a deal at a time, in an ephemeral answer (its asker's alone). Its buttons (``kz:y:`` custom
ids: the asker, an 8-character match key, the dealing and the page; no card) page it in
place for the asker only; the 📄 button gives the match's deal log as a JSON file, which
``python -m engine replay`` reads."""

from __future__ import annotations

import io
import json
import re
from typing import Any, cast

import discord
from discord import app_commands, ui

from adapters.common import replay as words
from adapters.common.i18n import N_
from adapters.common.render import Text
from adapters.discord.handlers import Handlers
from adapters.discord.serving import Served
from adapters.discord.texts import escape
from adapters.discord.views import clip, serve
from bot.history import Replay

Interaction = discord.Interaction[discord.Client]
LIMIT = 1900  # under Discord's 2000 characters of content
TEMPLATE = r"kz:y:(?P<owner>\d{1,20}):(?P<key>[A-Za-z0-9_-]{0,8}):(?P<deal>\d{1,3}):(?P<page>-?\d{1,2})"
FILE_PAGE = -1  # the page number of the 📄 button: the log as a file


def custom_id(owner: int, key: str, deal: int, page: int) -> str:
    return f"kz:y:{owner}:{key}:{deal}:{page}"


class HistoryButton(ui.DynamicItem[ui.Button[ui.View]], template=TEMPLATE):
    def __init__(self, owner: int, key: str, deal: int, page: int, label: str = "·") -> None:
        super().__init__(
            ui.Button(
                label=clip(label),
                style=discord.ButtonStyle.secondary,
                custom_id=custom_id(owner, key, deal, page),
            )
        )
        self.owner, self.key, self.deal, self.page = owner, key, deal, page

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> HistoryButton:
        return cls(int(match["owner"]), match["key"], int(match["deal"]), int(match["page"]))

    async def callback(self, interaction: Interaction) -> None:
        await serve(interaction, lambda h: pressed(cast(Any, h), interaction, self))


async def history(h: Any, interaction: Interaction) -> None:
    t: Text = await h.chat_text(interaction)
    entries = await h.history.entries("dc", str(interaction.channel_id))
    view = list_view(t, entries, 0, interaction.user.id) if entries else None
    text = escape(words.history_page(t, entries, 0))
    if view is None:
        await interaction.response.send_message(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, view=view, ephemeral=True)


def list_view(t: Text, entries: list[dict[str, Any]], page: int, owner: int) -> ui.View:
    view = ui.View(timeout=None)
    first = page * words.PER_PAGE
    for i, entry in enumerate(entries[first : first + words.PER_PAGE], start=first + 1):
        if entry.get("replay"):
            view.add_item(HistoryButton(owner, str(entry["key"]), 0, 0, f"🎬 {i}"))
    if page > 0:
        view.add_item(HistoryButton(owner, "", 0, page - 1, "◀"))
    if page + 1 < words.pages_of_list(entries):
        view.add_item(HistoryButton(owner, "", 0, page + 1, "▶"))
    return view


def replay_view(t: Text, rep: Replay, b: HistoryButton, pages: int) -> ui.View:
    view = ui.View(timeout=None)
    if b.deal > 0:
        view.add_item(HistoryButton(b.owner, b.key, b.deal - 1, 0, "⏮ " + t._("Deal before")))
    if b.page > 0:
        view.add_item(HistoryButton(b.owner, b.key, b.deal, b.page - 1, "◀"))
    if b.page + 1 < pages:
        view.add_item(HistoryButton(b.owner, b.key, b.deal, b.page + 1, "▶"))
    if b.deal + 1 < len(rep.deals):
        view.add_item(HistoryButton(b.owner, b.key, b.deal + 1, 0, t._("Next deal") + " ⏭"))
    view.add_item(HistoryButton(b.owner, "", 0, 0, "📜 " + t._("Back to the list")))
    view.add_item(HistoryButton(b.owner, b.key, 0, FILE_PAGE, "📄 " + t._("Log file")))
    return view


async def pressed(h: Any, interaction: Interaction, b: HistoryButton) -> None:
    t: Text = await h.chat_text(interaction)
    if interaction.user.id != b.owner:
        await h.say(
            interaction, "⚠️ " + t._("These buttons are for the one who asked: send /history yourself.")
        )
        return
    chat = str(interaction.channel_id)
    if not b.key:
        entries = await h.history.entries("dc", chat)
        page = max(0, min(b.page, words.pages_of_list(entries) - 1))
        text = escape(words.history_page(t, entries, page))
        await interaction.response.edit_message(content=text, view=list_view(t, entries, page, b.owner))
        return
    if b.page == FILE_PAGE:
        await send_log(h, interaction, t, chat, b.key)
        return
    rep = await h.history.replay("dc", chat, b.key)
    if rep is None or not 0 <= b.deal < len(rep.deals):
        await h.say(interaction, "⚠️ " + t._("This replay is no longer kept."))
        return
    pages = [escape(p) for p in words.replay_pages(t, rep, b.deal, LIMIT)]
    pages = [p if len(p) <= 2000 else p[:1999] + "…" for p in pages]  # escaping adds a little
    if not 0 <= b.page < len(pages):
        await h.say(interaction, "⚠️ " + t.reason("bad_token"))
        return
    view = replay_view(t, rep, b, len(pages))
    base = h.service.settings.webapp_url
    link = await h.history.replay_link("dc", chat, b.key) if base else None
    if link:  # the web table's step-through (a link button: no custom id)
        view.add_item(
            ui.Button(
                label="🌐 " + t._("Step through it on the web"), url=f"{str(base).rstrip('/')}/replay#{link}"
            )
        )
    await interaction.response.edit_message(content=pages[b.page], view=view)


async def send_log(h: Any, interaction: Interaction, t: Text, chat: str, key: str) -> None:
    """The match's deal log as a file, for ``python -m engine replay``: for the asker."""
    log = await h.history.replay_log("dc", chat, key)
    if log is None:
        await h.say(interaction, "⚠️ " + t._("This replay is no longer kept."))
        return
    data = json.dumps(log, ensure_ascii=False).encode()
    await interaction.response.send_message(
        t._("The match's log: python -m engine replay {file}").format(file=f"kozel-{key}.json"),
        file=discord.File(io.BytesIO(data), filename=f"kozel-{key}.json"),
        ephemeral=True,
    )


def register(tree: app_commands.CommandTree[discord.Client], h: Handlers, served: Served) -> None:
    @tree.command(name="history", description=N_("The last matches here, and their replays"))
    @app_commands.guild_only()
    @served
    async def history_command(interaction: Interaction) -> None:
        await history(h, interaction)


ITEMS: tuple[type[ui.DynamicItem[Any]], ...] = (HistoryButton,)
