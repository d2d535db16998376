"""Slash commands, and their names' and descriptions' translations from the catalogs.

Command and option names stay ASCII (what people type); descriptions and choice names are
localized by ``CatalogTranslator`` from the same gettext catalogs as every other text. The
game commands are for servers only; /rules, /help and /lang work in a DM as well.
"""

from __future__ import annotations

import functools
from typing import cast

import discord
from discord import app_commands
from discord.app_commands import Choice, Range, TranslationContextLocation, locale_str

from adapters.common.i18n import LANGUAGES, N_, translator
from adapters.common.lobby import END_ASKED
from adapters.common.render import PRESET_TITLES, Text
from adapters.discord import community, history, panels, texts, tournament
from adapters.discord.handlers import Handlers
from adapters.discord.serving import Body, P, Served
from bot.changes import Reason
from bot.room import FINISHED, LOBBY, PLAYING
from engine.presets import PRESETS

Interaction = discord.Interaction[discord.Client]

#: Discord locales with a catalog of ours (English is the commands' own language)
LOCALES = {discord.Locale.russian: "ru", discord.Locale.ukrainian: "uk", discord.Locale.croatian: "hr"}
UNTRANSLATED = (
    TranslationContextLocation.command_name,
    TranslationContextLocation.group_name,
    TranslationContextLocation.parameter_name,
)

PRESET_CHOICES = [Choice(name=PRESET_TITLES.get(p, p), value=p) for p in PRESETS]
# the levels' words are adapters/common/lobby.py's (the same on every platform), explained
LEVEL_CHOICES = [
    Choice(name=N_("Beginner (makes mistakes)"), value="easy"),
    Choice(name=N_("Amateur (plays by sound rules)"), value="normal"),
    Choice(name=N_("Master (thinks ahead)"), value="hard"),
]
CHART_CHOICES = [Choice(name=N_("on"), value="on"), Choice(name=N_("off"), value="off")]
LANGUAGE_CHOICES = [
    Choice(name="Русский", value="ru"),
    Choice(name="English", value="en"),
    Choice(name="Українська", value="uk"),
    Choice(name="Hrvatski", value="hr"),
]


class CatalogTranslator(app_commands.Translator):
    """``locale_str`` -> the catalog's text for that Discord locale (None: keep English)."""

    async def translate(
        self, string: locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if context.location in UNTRANSLATED:
            return None
        lang = LOCALES.get(locale)
        if lang is None:
            return None
        text = translator(lang).gettext(string.message)
        return text if text and text != string.message else None


def _served(h: Handlers) -> Served:
    """A decorator: the command's body inside ``Handlers.handling`` (counted, guarded).
    Defined in this module so discord.py resolves the wrapped signature's annotations here."""

    def served(func: Body[P]) -> Body[P]:
        @functools.wraps(func)
        async def run(interaction: Interaction, *args: P.args, **kwargs: P.kwargs) -> None:
            async with h.handling(interaction) as go:
                if go:
                    await func(interaction, *args, **kwargs)

        # functools.wraps types its result as its own ``_Wrapped``; it is ``run``, a body
        # of the same signature
        return cast(Body[P], run)

    return served


def register(tree: app_commands.CommandTree[discord.Client], h: Handlers) -> None:
    served = _served(h)
    for group in (_lobby_commands, _queue_commands, _table_commands, _record_commands, _info_commands):
        group(tree, h, served)
    tournament.register(tree, h, served, PRESET_CHOICES)  # issue 36.3
    history.register(tree, h, served)
    community.register(tree, h, served)  # issue 36: /defaults, /notify, /top


def _lobby_commands(tree: app_commands.CommandTree[discord.Client], h: Handlers, served: Served) -> None:
    """The lobby: opening a table, seats, computer players, the deal."""
    svc = h.service

    @tree.command(name="newgame", description=N_("Open a table in this channel"))
    @app_commands.describe(preset=N_("The game"), players=N_("Seats at the table"))
    @app_commands.choices(preset=PRESET_CHOICES)
    @app_commands.guild_only()
    @served
    async def newgame(
        interaction: Interaction, preset: Choice[str] | None = None, players: Range[int, 2, 6] | None = None
    ) -> None:
        name = preset.value if preset is not None else "kozel"
        if not h.can_post(interaction):
            t = h.user_text(interaction)
            await h.say(
                interaction,
                "⚠️ " + t._("I cannot post in this channel: give me the permission to send messages here."),
            )
            return
        out = await svc.create(
            "dc",
            str(interaction.channel_id),
            None,
            h.user(interaction),
            name,
            size=players,
            update_id=h.update_id(interaction),
        )
        if out.ok and out.room is not None and interaction.guild_id is not None:
            # whoever draws this table later (a timer's worker without this server in its
            # cache) still knows its server and the server's own language
            await h.platform_data.set_room_data(
                out.room.id, dc_guild=str(interaction.guild_id), dc_locale=str(interaction.guild_locale or "")
            )
        await h.done(interaction, out)
        if out.ok and not out.repeat and out.room is not None:
            await community.send_notice(h, interaction.guild, out.room)  # issue 36.2

    @tree.command(name="join", description=N_("Take a seat"))
    @app_commands.guild_only()
    @served
    async def join(interaction: Interaction) -> None:
        await h.done(
            interaction,
            await svc.join(h.room_id(interaction), h.user(interaction), update_id=h.update_id(interaction)),
        )

    @tree.command(name="leave", description=N_("Leave your seat"))
    @app_commands.guild_only()
    @served
    async def leave(interaction: Interaction) -> None:
        out = await svc.leave(h.room_id(interaction), h.user(interaction), update_id=h.update_id(interaction))
        if (
            out.reason == Reason.ALREADY_STARTED
            and out.room is not None
            and out.room.seat_of(h.user(interaction).id) is not None
        ):
            await h.say(
                interaction,
                "ℹ️ " + texts.leave_mid_match_text(h.user_text(interaction), svc.settings.missed_turns_to_bot),
            )
            return
        await h.done(interaction, out)

    @tree.command(name="addbot", description=N_("Seat a computer player"))
    @app_commands.describe(level=N_("How the computer plays"))
    @app_commands.choices(level=LEVEL_CHOICES)
    @app_commands.guild_only()
    @served
    async def addbot(interaction: Interaction, level: Choice[str] | None = None) -> None:
        out = await h.add_bot(interaction, level.value if level is not None else None)
        await h.done(interaction, out)

    @tree.command(name="startgame", description=N_("Deal"))
    @app_commands.guild_only()
    @served
    async def startgame(interaction: Interaction) -> None:
        await h.done(interaction, await h.start(interaction))


def _queue_commands(tree: app_commands.CommandTree[discord.Client], h: Handlers, served: Served) -> None:
    """The queue for a seat at a full table (RULES.md 5 ``elimination``)."""
    svc = h.service

    @tree.command(name="wait", description=N_("Queue for a seat (elimination)"))
    @app_commands.guild_only()
    @served
    async def wait(interaction: Interaction) -> None:
        await h.done(
            interaction,
            await svc.wait(h.room_id(interaction), h.user(interaction), update_id=h.update_id(interaction)),
        )

    @tree.command(name="unwait", description=N_("Leave the queue"))
    @app_commands.guild_only()
    @served
    async def unwait(interaction: Interaction) -> None:
        await h.done(
            interaction,
            await svc.unwait(h.room_id(interaction), h.user(interaction), update_id=h.update_id(interaction)),
        )


def _table_commands(tree: app_commands.CommandTree[discord.Client], h: Handlers, served: Served) -> None:
    """A table's life: the hand, the creator's and Manage Server's rights, invitations."""
    svc = h.service

    @tree.command(name="hand", description=N_("Show my cards (only I see them)"))
    @app_commands.guild_only()
    @served
    async def hand(interaction: Interaction) -> None:
        await h.show_hand(interaction)

    @tree.command(name="cancel", description=N_("End the game"))
    @app_commands.guild_only()
    @served
    async def cancel(interaction: Interaction) -> None:
        room = await h.current_room(interaction)
        if room is not None and room.state == FINISHED:
            # the service knows no open game here; say which game ended, and how
            await h.say(interaction, "ℹ️ " + texts.ended_text(h.user_text(interaction), room))
            return
        out = await svc.cancel(
            h.room_id(interaction),
            h.user(interaction),
            h.is_admin(interaction),
            update_id=h.update_id(interaction),
        )
        if out.ok and any(ln.key == "cancel_asked" for ln in out.lines):
            # a deal has been played: the others agree on the table, or he gives up there
            await h.say(interaction, "🗳 " + h.user_text(interaction)._(END_ASKED))
            return
        await h.done(interaction, out)

    @tree.command(name="kick", description=N_("Remove a player"))
    @app_commands.describe(
        player=N_("The player to remove"), seat=N_("Or the seat's number (a computer player too)")
    )
    @app_commands.guild_only()
    @served
    async def kick(
        interaction: Interaction, player: discord.User | None = None, seat: Range[int, 1, 6] | None = None
    ) -> None:
        target: str | int
        if player is not None:
            target = f"dc:{player.id}"
        elif seat is not None:
            target = seat - 1
        else:
            t = h.user_text(interaction)
            await h.say(interaction, t._("Name the player or the seat: /kick player:@name or /kick seat:2"))
            return
        out = await svc.kick(
            h.room_id(interaction),
            h.user(interaction),
            target,
            h.is_admin(interaction),
            update_id=h.update_id(interaction),
        )
        await h.done(interaction, out)

    @tree.command(name="settings", description=N_("The table's rules"))
    @app_commands.guild_only()
    @served
    async def settings(interaction: Interaction) -> None:
        await h.show_settings(interaction)

    @tree.command(name="invite", description=N_("Invite friends"))
    @app_commands.guild_only()
    @served
    async def invite(interaction: Interaction) -> None:
        room = await h.current_room(interaction)
        if room is None or room.state != LOBBY:
            playing = room is not None and room.state == PLAYING
            await h.refuse(interaction, "already_started" if playing else "no_room")
            return
        t = await h.chat_text(interaction)
        known = h.painter.table_message(room)
        url = None
        if known is not None and interaction.guild_id is not None:
            url = f"https://discord.com/channels/{interaction.guild_id}/{known.channel}/{known.message}"
        layout = panels.invite_layout(t, interaction.user.display_name, svc.table_of(room), url)
        await interaction.response.send_message(view=layout)


def _record_commands(tree: app_commands.CommandTree[discord.Client], h: Handlers, served: Served) -> None:
    """Scores and records."""
    svc = h.service

    @tree.command(name="score", description=N_("The match score"))
    @app_commands.guild_only()
    @served
    async def score(interaction: Interaction) -> None:
        t = await h.chat_text(interaction)
        room = await h.current_room(interaction)
        cancelled = room is not None and bool(room.result and room.result.get("cancelled"))
        if room is None or (room.match is None and not cancelled) or room.state == LOBBY:
            await h.refuse(interaction, "not_started" if room else "no_room", t)
            return
        text = texts.score_text(t, svc.table_of(room), cancelled)
        await h.say(interaction, texts.escape(text), ephemeral=False)

    @tree.command(name="series", description=N_("The series in this chat"))
    @app_commands.guild_only()
    @served
    async def series(interaction: Interaction) -> None:
        t = await h.chat_text(interaction)
        rows = await h.statistics.series("dc", str(interaction.channel_id))
        await h.say(interaction, texts.escape(t.series(rows)), ephemeral=False)

    @tree.command(name="stats", description=N_("A player's numbers: matches, wins, rating"))
    @app_commands.describe(player=N_("Whose numbers (yours if nobody is named)"))
    @app_commands.guild_only()
    @served
    async def stats(interaction: Interaction, player: discord.Member | None = None) -> None:
        t = await h.chat_text(interaction)
        who = player or interaction.user
        profile = await h.statistics.profile("dc", str(interaction.channel_id), f"dc:{who.id}")
        await h.say(interaction, texts.escape(t.stats(who.display_name, profile)), ephemeral=False)

    @tree.command(name="chart", description=N_("The score chart after long matches: on or off"))
    @app_commands.describe(state=N_("On or off"))
    @app_commands.choices(state=CHART_CHOICES)
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @served
    async def chart(interaction: Interaction, state: Choice[str] | None = None) -> None:
        t = await h.chat_text(interaction)
        key = h.chat_key(interaction)  # the server's, as its language
        if state is None:
            on = await h.chats.chat_setting("dc", key, "chart") != "off"
            await h.say(interaction, t.chart_setting(on))
            return
        if not h.is_admin(interaction):
            await h.say(
                interaction,
                "⚠️ "
                + h.user_text(interaction)._(
                    "Only a member with Manage Server may turn the chart on or off."
                ),
            )
            return
        await h.chats.set_chat_setting("dc", key, "chart", state.value)
        await h.say(interaction, t.chart_setting(state.value == "on"), ephemeral=False)


def _info_commands(tree: app_commands.CommandTree[discord.Client], h: Handlers, served: Served) -> None:
    """Words: rules, the server's language, help (in a DM too)."""

    @tree.command(name="rules", description=N_("A short rules card"))
    @app_commands.describe(preset=N_("The game"))
    @app_commands.choices(preset=PRESET_CHOICES)
    @served
    async def rules(interaction: Interaction, preset: Choice[str] | None = None) -> None:
        name = preset.value if preset is not None else None
        if name is None:
            room = await h.current_room(interaction)
            name = room.preset if room is not None else "kozel"
        await h.say(interaction, texts.rules_text(h.user_text(interaction), name))

    @tree.command(name="lang", description=N_("The chat's language"))
    @app_commands.describe(language=N_("The language"))
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @app_commands.default_permissions(manage_guild=True)  # members do not even see it
    @served
    async def lang(interaction: Interaction, language: Choice[str]) -> None:
        code = language.value
        if code not in LANGUAGES:
            await h.refuse(interaction, "bad_option")
            return
        if interaction.guild_id is not None and not h.is_admin(interaction):
            # a server may let members see the command: the server's language stays its own
            t = h.user_text(interaction)
            await h.say(
                interaction, "⚠️ " + t._("Only a member with Manage Server may change the server's language.")
            )
            return
        await h.chats.set_chat_language("dc", h.chat_key(interaction), code)
        room = await h.current_room(interaction)
        if room is not None:
            h.painter.redraw(room)  # this channel's table at once; others at their next change
        await h.say(interaction, Text(code)._("Language: English"), ephemeral=False)

    @tree.command(name="help", description=N_("What I can do"))
    @served
    async def help_(interaction: Interaction) -> None:
        await h.say(interaction, texts.help_text(h.user_text(interaction)))
