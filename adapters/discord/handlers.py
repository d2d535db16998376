"""What buttons, selects and commands do: service calls and the answers to interactions.

Every interaction is answered at once (the service is a Redis round trip or two, far inside
Discord's 3 seconds; a hint, which may search, is deferred) and carries its id to the
service, which applies it once. A table button that worked is acknowledged silently (type
6) and the painter edits the table. A press on a person's hand is answered on that hand
(type 7): the move made, or the hand as it is now with the reason on top; that message is
then his one live hand. A repeat (a double press) is quiet. Any other refusal is an
ephemeral message saying why, and changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

import discord
from discord import ui

from adapters.common.i18n import N_, pick_language
from adapters.common.render import Text
from adapters.discord import panels, texts, views
from adapters.discord.activity import Activity
from adapters.discord.painter import Painter
from bot import logs, tokens
from bot.changes import Reason
from bot.room import LOBBY, PLAYING, Room, User, room_id_for
from bot.service import Outcome, Refused, Services
from bot.views import HandView, TableView

log = logging.getLogger(__name__)

Interaction = discord.Interaction[discord.Client]
MAX_MASK = 1 << 12


RESTARTING = N_("The bot is restarting: try again in a few seconds.")
FAILED = N_("Something went wrong: nothing was changed. Try again.")
#: Discord's words where the shared ones name another platform's ideas ("chat admin")
DISCORD_REASONS = {
    "not_allowed": N_("Only the table's creator or a member with Manage Server may do that."),
}
NO_HINT = N_("No hint now: hints are for your own move in a game against computer players.")
SHOKHA_LEAD = N_("A lead is cards of one suit, or the 6♠ with any suit.")


def reason_text(t: Text, reason: str | None, table: TableView | None = None) -> str:
    """A refusal's words: the shared ones, in Discord's terms, and a lead's rule as this
    table plays it (RULES.md 1: the shokha joins any suit)."""
    if reason == "mixed_suits" and table is not None and table.options.get("shokha"):
        return t._(SHOKHA_LEAD)
    if reason in DISCORD_REASONS:
        return t._(DISCORD_REASONS[reason])
    return t.reason(reason)


class Handlers:
    """What the commands and buttons reach: the rooms and moves (``service``), the chats'
    settings and statistics, the platform's records."""

    def __init__(
        self, services: Services, painter: Painter, activity: Activity, default_language: str
    ) -> None:
        self.service = services.games
        self.chats = services.chats
        self.statistics = services.stats
        self.platform_data = services.platform.data
        self.budgets = services.platform.budgets
        self.history = services.history
        self.tournaments = services.tournaments
        self.painter = painter
        self.activity = activity
        self.default_language = default_language

    @contextlib.asynccontextmanager
    async def handling(self, interaction: Interaction) -> AsyncIterator[bool]:
        """Around every handler: counted as work (shutdown waits for it, tests wait for
        it); while shutting down, a short answer instead (False: do not serve); an error
        becomes a plain apology, never a traceback in the chat. Every line logged inside
        names the room and the interaction."""
        async with self.activity.work():
            with logs.context(self.room_id(interaction), self.update_id(interaction)):
                if self.activity.stopping:
                    await self.say(interaction, "⏳ " + self.user_text(interaction)._(RESTARTING))
                    yield False
                    return
                try:
                    yield True
                except discord.HTTPException as e:
                    # Discord refused an answer (an expired token, a deleted message): there
                    # is nobody left to tell
                    log.warning("interaction %s: %s", interaction.id, e)
                except Exception:
                    log.exception("interaction %s", interaction.id)
                    if not interaction.response.is_done():
                        with contextlib.suppress(discord.HTTPException):
                            await self.say(interaction, "⚠️ " + self.user_text(interaction)._(FAILED))

    # --- who, where, in which language ------------------------------------------------------

    def user(self, interaction: Interaction) -> User:
        u = interaction.user
        return User(f"dc:{u.id}", u.display_name, self.lang_of(interaction))

    def lang_of(self, interaction: Interaction) -> str:
        return pick_language(str(interaction.locale), self.default_language)

    def user_text(self, interaction: Interaction) -> Text:
        return Text(self.lang_of(interaction))

    @staticmethod
    def chat_key(interaction: Interaction) -> str:
        """The language belongs to the server (a DM channel outside any server)."""
        return str(interaction.guild_id or interaction.channel_id or 0)

    async def chat_lang(self, interaction: Interaction) -> str:
        """The server's language: chosen with /lang, else the server's own locale (a new
        English server speaks English), else the bot's default."""
        key = self.chat_key(interaction)
        if await self.chats.chat_language_set("dc", key):
            return await self.chats.chat_language("dc", key)
        if interaction.guild_id is not None and interaction.guild_locale is not None:
            return pick_language(str(interaction.guild_locale), self.default_language)
        return self.default_language

    async def chat_text(self, interaction: Interaction) -> Text:
        return Text(await self.chat_lang(interaction))

    @staticmethod
    def update_id(interaction: Interaction) -> str:
        """What the service claims once: the same interaction is never applied twice."""
        return f"dc{interaction.id}"

    @staticmethod
    def room_id(interaction: Interaction) -> str:
        """One room per channel; a thread's id is a chat of its own."""
        return room_id_for("dc", str(interaction.channel_id or 0))

    @staticmethod
    def is_admin(interaction: Interaction) -> bool:
        if interaction.guild_id is None:
            return False
        perms = interaction.permissions
        return perms.manage_guild or perms.administrator

    @staticmethod
    def can_post(interaction: Interaction) -> bool:
        """The table is a message of the bot's own: without the right to post here, a game
        opened by a slash command (which needs no such right) would have no table."""
        perms = interaction.app_permissions
        in_thread = isinstance(interaction.channel, discord.Thread)
        allowed = perms.send_messages_in_threads if in_thread else perms.send_messages
        return perms.view_channel and allowed

    # --- answers --------------------------------------------------------------------------

    async def say(self, interaction: Interaction, text: str, *, ephemeral: bool = True) -> None:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=ephemeral)
        else:
            await interaction.response.send_message(text, ephemeral=ephemeral)

    async def refuse(
        self, interaction: Interaction, out: Outcome | str | None, t: Text | None = None
    ) -> None:
        t = t or self.user_text(interaction)
        reason = out.reason if isinstance(out, Outcome) else out
        table = self.service.table_of(out.room) if isinstance(out, Outcome) and out.room else None
        await self.say(interaction, "⚠️ " + reason_text(t, reason, table))

    async def done(self, interaction: Interaction, out: Outcome) -> None:
        """A lobby change from a command: the table shows it; the presser gets a short line
        (a repeat: just the tick, it was done before)."""
        if not out.ok:
            await self.refuse(interaction, out)
            return
        t = self.user_text(interaction)
        text = next((s for ln in out.lines if (s := texts.line_text(t, ln))), "")
        await self.say(interaction, "✅ " + texts.escape(text) if text else "✅")

    async def ack(self, interaction: Interaction, out: Outcome) -> None:
        """A table button: silent when it worked or was done already (the table shows it),
        else why not."""
        if out.ok:
            await interaction.response.defer()
        else:
            await self.refuse(interaction, out)

    # --- the table's buttons ----------------------------------------------------------------

    async def table_button(self, interaction: Interaction, what: str) -> None:
        svc, rid, user = self.service, self.room_id(interaction), self.user(interaction)
        upd = self.update_id(interaction)
        changes: dict[str, Callable[[], Awaitable[Outcome]]] = {
            "join": lambda: svc.join(rid, user, update_id=upd),
            "leave": lambda: svc.leave(rid, user, update_id=upd),
            "bot": lambda: self.add_bot(interaction, None),
            "unbot": lambda: svc.remove_bot(rid, user, update_id=upd, is_admin=self.is_admin(interaction)),
            "start": lambda: self.start(interaction),
            "again": lambda: svc.rematch(rid, user, update_id=upd),
            "wait": lambda: svc.wait(rid, user, update_id=upd),
            "agree": lambda: svc.agree_to_end(rid, user, update_id=upd),
            "giveup": lambda: svc.give_up(rid, user, update_id=upd),
        }
        screens: dict[str, Callable[[Interaction], Awaitable[None]]] = {
            "set": self.show_settings,
            "hand": self.show_hand,
            "seats": self.show_seats,
        }
        if what in changes:
            await self.ack(interaction, await changes[what]())
        elif what in screens:
            await screens[what](interaction)
        else:
            await self.refuse(interaction, "bad_token")

    async def add_bot(self, interaction: Interaction, level: str | None) -> Outcome:
        """A computer player (``level`` None: the table's default), named in the server's
        language with a name no seat uses."""
        names = texts.bot_names(await self.chat_text(interaction))
        return await self.service.add_bot(
            self.room_id(interaction),
            self.user(interaction),
            level,
            names,
            update_id=self.update_id(interaction),
            is_admin=self.is_admin(interaction),
        )

    async def start(self, interaction: Interaction) -> Outcome:
        """Deal. The creator may deal a table that is not full, anyone seated a full one; a
        member with Manage Server has the creator's rights (as for /cancel)."""
        rid, user, upd = self.room_id(interaction), self.user(interaction), self.update_id(interaction)
        return await self.service.start(rid, user, update_id=upd, is_admin=self.is_admin(interaction))

    async def _lobby_for(self, interaction: Interaction, t: Text) -> Room | None:
        """The channel's lobby, or None after saying why there is none."""
        room = await self.service.room(self.room_id(interaction))
        if room is None or room.state != LOBBY:
            await self.refuse(
                interaction, "already_started" if room and room.state == PLAYING else "no_room", t
            )
            return None
        return room

    async def show_settings(self, interaction: Interaction) -> None:
        t = self.user_text(interaction)
        room = await self._lobby_for(interaction, t)
        if room is None:
            return
        if room.creator != self.user(interaction).id and not self.is_admin(interaction):
            await self.refuse(interaction, "not_allowed", t)
            return
        layout = panels.settings_layout(t, self.service.table_of(room))
        await interaction.response.send_message(view=layout, ephemeral=True)

    async def show_seats(self, interaction: Interaction) -> None:
        """🔀 Seats: where everyone sits (and in which team); a seated person may move to a
        free seat, the creator or Manage Server may swap any two."""
        t = self.user_text(interaction)
        room = await self._lobby_for(interaction, t)
        if room is None:
            return
        layout = self._seats_layout(interaction, t, room)
        await interaction.response.send_message(view=layout, ephemeral=True)

    def _seats_layout(self, interaction: Interaction, t: Text, room: Room) -> ui.LayoutView:
        user = self.user(interaction)
        manager = room.creator == user.id or self.is_admin(interaction)
        return panels.seats_layout(t, self.service.table_of(room), room.seat_of(user.id), manager)

    async def set_option(self, interaction: Interaction, name: str, values: Sequence[str]) -> None:
        """A select of /settings or of the seats panel: the change, then the panel again."""
        t = self.user_text(interaction)
        rid, user, admin = self.room_id(interaction), self.user(interaction), self.is_admin(interaction)
        upd, raw = self.update_id(interaction), values[0] if values else ""
        out = await self._lobby_change(rid, user, admin, upd, name, raw)
        if not out.ok or out.room is None:
            await self.refuse(interaction, out, t)
            return
        if name in ("seat", "swap"):
            layout = self._seats_layout(interaction, t, out.room)
        else:
            layout = panels.settings_layout(t, self.service.table_of(out.room))
        await interaction.response.edit_message(view=layout)

    async def _lobby_change(
        self, rid: str, user: User, admin: bool, upd: str, name: str, raw: str
    ) -> Outcome:
        svc = self.service
        if name == "size":
            return await svc.set_size(rid, user, int(raw) if raw.isdigit() else 0, admin, update_id=upd)
        if name in ("seat", "swap"):
            pair = panels.parse_seats(raw)
            if pair is None:
                return Outcome(False, Reason.BAD_SEAT)
            return await svc.swap_seats(rid, user, *pair, is_admin=admin, update_id=upd)
        return await svc.set_option(rid, user, name, panels.parse_value(raw), admin, update_id=upd)

    # --- hands and moves ---------------------------------------------------------------------

    async def _hand_or_reason(self, interaction: Interaction) -> tuple[Room | None, str | None]:
        room = await self.service.room(self.room_id(interaction))
        if room is None:
            return None, "no_room"
        if room.state == LOBBY:
            return room, "not_started"
        if room.seat_of(self.user(interaction).id) is None:
            return room, "not_your_seat"
        if room.state != PLAYING:
            return room, "game_over"
        return room, None

    @staticmethod
    def on_hand(interaction: Interaction) -> bool:
        """Pressed on the presser's own hand: only the bot sends ephemeral messages with
        moves, and only their owner sees (so presses) one."""
        message = interaction.message
        return message is not None and message.flags.ephemeral

    async def show_hand(self, interaction: Interaction) -> None:
        """ "Show my hand" or /hand: the presser's hand in a fresh ephemeral message, from
        now on his live hand (an older one is retired)."""
        t, user = self.user_text(interaction), self.user(interaction)
        room, reason = await self._hand_or_reason(interaction)
        hand = self.service.hand_of(room, user.id) if room is not None and not reason else None
        if room is None or hand is None:
            await self.say(interaction, "⚠️ " + reason_text(t, reason or "not_your_seat"))
            return
        sent = await interaction.response.send_message(view=views.hand_layout(t, hand), ephemeral=True)
        if sent.message_id is not None:
            await self.painter.live.remember(room, user.id, interaction, sent.message_id, hand, t.lang)

    async def refresh_hand(self, interaction: Interaction) -> None:
        """🔄 on a hand: that message shows the hand as it is now (and is the live one)."""
        if not self.on_hand(interaction):
            await self.show_hand(interaction)
            return
        user = self.user(interaction)
        room = await self.service.room(self.room_id(interaction))
        hand = self.service.hand_of(room, user.id) if room is not None else None
        if room is None or hand is None:
            reason = "no_room" if room is None else "not_your_seat"
            await self.say(interaction, "⚠️ " + reason_text(self.user_text(interaction), reason))
            return
        await self.answer_on_hand(interaction, room, hand)

    async def answer_on_hand(
        self, interaction: Interaction, room: Room, hand: HandView, notice: str | None = None
    ) -> None:
        """Answer a press on the person's own hand by editing that very message (type 7),
        ``notice`` on top: the message he looks at stays live, never a copy beside it."""
        t = self.user_text(interaction)
        await interaction.response.edit_message(view=views.hand_layout(t, hand, notice))
        assert interaction.message is not None
        await self.painter.live.remember(
            room, self.user(interaction).id, interaction, interaction.message.id, hand, t.lang
        )

    async def off_message(self, interaction: Interaction, custom_id: str, values: Sequence[str]) -> None:
        """A custom id that is not on its message. On the presser's own hand it is most
        likely one he saw a moment ago: a second press that lands after the first press's
        answer redrew the hand, or a press while the painter redrew it. A move goes to the
        service, which knows a repeat (quiet), a move of a moment ago (answered on the hand,
        why not on top) and a forgery (not valid); the hand's own tools ("I'm back",
        refresh, hint) do what they do. A table's button pressed again after the table
        lost it (a second Start): the service says why not. Anything else is not valid."""
        move = re.fullmatch(views.MOVE_TEMPLATE, custom_id)
        select = re.fullmatch(views.SELECT_TEMPLATE, custom_id)
        table = re.fullmatch(views.TABLE_TEMPLATE, custom_id)
        tools: dict[str, Callable[[Interaction], Awaitable[None]]] = {
            views.BACK_ID: self.back,
            views.REFRESH_ID: self.refresh_hand,
            views.HINT_ID: self.hint,
        }
        if not self.on_hand(interaction):
            if table is not None:
                await self.table_button(interaction, table["what"])
            else:
                await self.refuse(interaction, "bad_token")
        elif move is not None:
            await self.move(interaction, move["token"])
        elif select is not None:
            await self.select_cards(interaction, select["stem"], values)
        elif custom_id in tools:
            await tools[custom_id](interaction)
        else:
            await self.refuse(interaction, "bad_token")

    async def move(self, interaction: Interaction, token: str) -> None:
        """A move from a button (or a select): the service applies it once, or says why
        not."""
        user, rid = self.user(interaction), self.room_id(interaction)
        self.painter.hold(rid, user.id)
        shown: Room | None = None
        try:
            out = await self.service.act(token, user, update_id=self.update_id(interaction), room_id=rid)
            shown = await self._answer_move(interaction, out)
        finally:
            self.painter.release(shown, rid, user.id)

    async def _answer_move(self, interaction: Interaction, out: Outcome) -> Room | None:
        """A move's answer (the room the answer showed, if any): a move made or refused on
        the hand edits that hand; a double press is quiet; a move from anywhere else is
        acknowledged silently, or refused in words."""
        t, user, on_hand = self.user_text(interaction), self.user(interaction), self.on_hand(interaction)
        room = out.room
        hand = self.service.hand_of(room, user.id) if room is not None else None
        if out.repeat:  # pressed again: it is done, nothing to say
            await interaction.response.defer()
            if on_hand and room is not None and hand is not None and interaction.message:
                # this press's token is the freshest way to that hand
                await self.painter.live.remember(
                    room, user.id, interaction, interaction.message.id, hand, t.lang
                )
            return room
        if out.ok:
            if on_hand and room is not None and hand is not None:
                await self.answer_on_hand(interaction, room, hand)
            else:
                await interaction.response.defer()
            return room
        if (
            out.reason in (Reason.FOREIGN_TOKEN, Reason.BAD_TOKEN, Reason.NO_ROOM, Reason.NOT_YOUR_SEAT)
            or not on_hand
            or room is None
            or hand is None
        ):
            await self.refuse(interaction, out, t)
            return None
        await self.answer_on_hand(
            interaction, room, hand, notice="⚠️ " + reason_text(t, out.reason, self.service.table_of(room))
        )
        return room

    async def back(self, interaction: Interaction) -> None:
        """🙋 I'm back (the seat was handed to a computer player after missed turns): the
        seat is his again at once (the table says so), answered on his hand, now his own
        and live. Pressed twice, or when he plays it himself already: his hand as it is;
        too late (the game is over): his hand, why not on top."""
        user, rid, t = self.user(interaction), self.room_id(interaction), self.user_text(interaction)
        if not self.on_hand(interaction):
            await self.refuse(interaction, "bad_token", t)
            return
        out = await self.service.come_back(rid, user, update_id=self.update_id(interaction))
        room = out.room
        hand = self.service.hand_of(room, user.id) if room is not None else None
        if room is None or hand is None:
            await self.refuse(interaction, out, t)
            return
        quiet = out.ok or out.reason == Reason.NOT_AWAY
        await self.answer_on_hand(
            interaction,
            room,
            hand,
            None if quiet else "⚠️ " + reason_text(t, out.reason, self.service.table_of(room)),
        )

    async def hint(self, interaction: Interaction) -> None:
        """💡 in a practice game: what a strong computer player would play, on top of the
        pressed hand (only its owner sees it). A search may take a moment: deferred."""
        user, rid, t = self.user(interaction), self.room_id(interaction), self.user_text(interaction)
        if not self.on_hand(interaction) or interaction.message is None:
            await self.refuse(interaction, "bad_token", t)
            return
        await interaction.response.defer()
        refused: str | None = None
        try:
            found = await self.service.hint(rid, user.id)
        except Refused as r:  # too many hints, or the pool is full
            found, refused = None, r.reason
        room = await self.service.room(rid)
        hand = self.service.hand_of(room, user.id) if room is not None else None
        if room is None or hand is None:
            return
        note = t.hint_text(found) if found is not None else "💡 " + t._(NO_HINT)
        if refused is not None:
            note = "⚠️ " + reason_text(t, refused)
        await interaction.edit_original_response(view=views.hand_layout(t, hand, note))
        await self.painter.live.remember(room, user.id, interaction, interaction.message.id, hand, t.lang)

    async def select_cards(self, interaction: Interaction, stem: str, values: Sequence[str]) -> None:
        mask = 0
        for v in values:
            if not (v.isascii() and v.isdigit()) or not 0 < int(v) < MAX_MASK:
                await self.refuse(interaction, "bad_token")
                return
            mask |= int(v)
        token = tokens.selected(stem, mask) if values else None
        if token is None:
            await self.refuse(interaction, "bad_token")
            return
        await self.move(interaction, token)

    # --- for the commands -------------------------------------------------------------------

    async def current_room(self, interaction: Interaction) -> Room | None:
        return await self.service.room(self.room_id(interaction))
