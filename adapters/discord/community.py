"""Issue 36 in Discord: ``/defaults`` (the channel's house rules), ``/notify`` and the one
notice a table, ``/top`` with its season and the table against computer players."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.app_commands import Choice

from adapters.common import community
from adapters.common.i18n import N_
from adapters.common.render import Text
from adapters.discord import texts
from adapters.discord.handlers import Handlers
from adapters.discord.painter import POSTS, WINDOW
from adapters.discord.serving import Served
from bot.room import FINISHED, Room
from engine.presets import PRESETS

log = logging.getLogger(__name__)
Interaction = discord.Interaction[discord.Client]

NOTIFY_CHOICES = [Choice(name=N_("on"), value="on"), Choice(name=N_("off"), value="off")]
DEFAULTS_CHOICES = [
    Choice(name=N_("show"), value="show"),
    Choice(name=N_("keep this table's rules"), value="save"),
    Choice(name=N_("back to the game's own"), value="reset"),
]
TOP_CHOICES = [Choice(name=N_("all time"), value="all"), Choice(name=N_("this month"), value="season")]


async def send_notice(h: Handlers, guild: discord.Guild | None, room: Room) -> None:
    """The one notice of a new table: the server's members who asked, mentioned (at most
    ``NOTICE_CAP``, and only they may be pinged by it); one who left is dropped for good.
    Within the channel's post budget: a notice that would break it is not sent."""
    users = await h.chats.notice_for(room)
    if not users or guild is None:
        return
    mentions, gone = [], []
    for user in users[: community.NOTICE_CHECKS]:
        try:
            member = await guild.fetch_member(int(user.split(":", 1)[1]))
        except discord.NotFound:
            gone.append(user)
            continue
        except discord.HTTPException:
            continue  # not now: kept for the next table
        mentions.append(member)
        if len(mentions) >= community.NOTICE_CAP:
            break
    await h.chats.drop_notify("dc", room.chat, gone)
    if not mentions:
        return
    if await h.budgets.flood_take(f"dc:{room.chat}:post", limit=POSTS, window=WINDOW, gap=0.0) > 0:
        log.info("notice of %s dropped: the channel's budget is spent", room.id)
        return
    t = Text(await h.painter.language(room))
    text = "🔔 " + texts.escape(t._("A table is open: {game}.").format(game=t.preset_title(room.preset)))
    channel = h.painter.client.get_partial_messageable(int(room.chat))
    await channel.send(
        text + "\n" + " ".join(m.mention for m in mentions),
        allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=mentions),
    )


async def defaults_text(h: Handlers, chat: str, t: Text, preset: str | None) -> str:
    rows = await community.house_rules_rows(h.chats, "dc", chat, t, preset)
    rows.append(
        t._(
            "A table starts from the rules last dealt here. Members with Manage Server: /defaults "
            "keep this table's rules, or back to the game's own."
        )
    )
    return texts.escape("\n\n".join(rows))


def register(tree: app_commands.CommandTree[discord.Client], h: Handlers, served: Served) -> None:
    """The commands of issue 36 (``served``: commands.py's guard around each body)."""
    svc = h.service

    @tree.command(name="notify", description=N_("Tell me when a table opens here: on or off"))
    @app_commands.describe(state=N_("On or off"))
    @app_commands.choices(state=NOTIFY_CHOICES)
    @app_commands.guild_only()
    @served
    async def notify(interaction: Interaction, state: Choice[str] | None = None) -> None:
        t = h.user_text(interaction)
        chat, user = str(interaction.channel_id), h.user(interaction).id
        if state is not None:
            await h.chats.set_notify("dc", chat, user, state.value == "on")
        await h.say(interaction, community.notify_text(t, await h.chats.notify_on("dc", chat, user)))

    @tree.command(name="defaults", description=N_("The rules a new table starts from here"))
    @app_commands.describe(action=N_("Show, keep or reset"), preset=N_("The game"))
    @app_commands.choices(action=DEFAULTS_CHOICES, preset=[Choice(name=p, value=p) for p in PRESETS])
    @app_commands.guild_only()
    @served
    async def defaults(
        interaction: Interaction, action: Choice[str] | None = None, preset: Choice[str] | None = None
    ) -> None:
        t = h.user_text(interaction)
        chat = str(interaction.channel_id)
        what = action.value if action is not None else "show"
        game = preset.value if preset is not None else None
        room = await svc.room(h.room_id(interaction))
        if what != "show" and not h.is_admin(interaction):
            await h.say(interaction, "⚠️ " + t._("Only a member with Manage Server may set the defaults."))
            return
        if what == "save":
            if room is None or room.state == FINISHED and room.match is None:
                await h.say(interaction, "⚠️ " + t._("Open a table and set its rules first: /newgame."))
                return
            await h.chats.pin_rules(room)
            game = room.preset
        elif what == "reset":
            await h.chats.reset_rules("dc", chat, [game] if game else list(PRESETS))
        await h.say(interaction, await defaults_text(h, chat, t, game or (room.preset if room else None)))

    @tree.command(name="top", description=N_("The chat's leaderboard"))
    @app_commands.describe(table=N_("All time or this month"))
    @app_commands.choices(table=TOP_CHOICES)
    @app_commands.guild_only()
    @served
    async def top(interaction: Interaction, table: Choice[str] | None = None) -> None:
        t = await h.chat_text(interaction)
        chat = str(interaction.channel_id)
        if table is not None and table.value == "season":
            month, rows = await h.statistics.season_leaderboard("dc", chat)
            text = community.season_text(t, month, rows)
        else:
            text = community.top_text(
                t, await h.statistics.leaderboard("dc", chat), await h.statistics.vs_computers("dc", chat)
            )
        await h.say(interaction, texts.escape(text), ephemeral=False)
