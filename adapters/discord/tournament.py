"""Tournaments in a channel (issue 36.3): ``/tournament game: rounds:``, the tournament
message's buttons (persistent ``DynamicItem``s carrying the tournament's id) and the
message itself, posted once and edited as the tournament goes on, within the channel's
write budget (``adapters/discord/painter.py``)."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands, ui
from discord.app_commands import Choice, Range

from adapters.common import tournament as common
from adapters.common.i18n import N_
from adapters.common.render import Text
from adapters.discord import views
from adapters.discord.activity import Activity
from adapters.discord.handlers import Handlers, reason_text
from adapters.discord.painter import EDITS, POSTS, Painter
from adapters.discord.serving import Served
from adapters.discord.texts import escape
from bot.tournament import PLAYING, Tournament
from bot.tournaments import Tournaments, TOutcome

log = logging.getLogger(__name__)

Interaction = discord.Interaction[discord.Client]
ACTIONS = "|".join(a.value for a in common.TourAction)
TEMPLATE = r"kz:r:(?P<action>" + ACTIONS + r"):(?P<tid>[A-Za-z0-9_-]{1,16})"
MESSAGE = "dc_msg"  # the tournament's record of its message id


def refusal(t: Text, out: TOutcome) -> str:
    return common.refusal(t, out) or reason_text(t, out.reason)


class TourButton(ui.DynamicItem[ui.Button[ui.LayoutView]], template=TEMPLATE):
    """A tournament message's button; the room is the channel it is pressed in."""

    def __init__(self, action: str, tid: str, label: str = "·", style: Any = None) -> None:
        button: ui.Button[ui.LayoutView] = ui.Button(
            label=views.clip(label),
            style=style or discord.ButtonStyle.secondary,
            custom_id=f"kz:r:{action}:{tid}",
        )
        super().__init__(button)
        self.action, self.tid = common.TourAction(action), tid

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> TourButton:
        return cls(match["action"], match["tid"])

    async def callback(self, interaction: Interaction) -> None:
        await views.serve(interaction, lambda h: press(h, interaction, self.action, self.tid))  # type: ignore[arg-type]


async def press(h: Handlers, interaction: Interaction, action: common.TourAction, tid: str) -> None:
    out = await common.press(
        h.tournaments, action, h.room_id(interaction), tid, h.user(interaction), h.is_admin(interaction)
    )
    t = h.user_text(interaction)
    if out.ok:
        await h.say(interaction, "✅ " + common.done_words(t, action))
    else:
        await h.say(interaction, "⚠️ " + refusal(t, out))


async def tournament_press(h: Handlers, interaction: Interaction, custom_id: str) -> bool:
    """A tournament button that is not on its message (an older tournament's, or forged):
    the service says why not. False: not a tournament button."""
    found = re.fullmatch(TEMPLATE, custom_id)
    if found is None:
        return False
    await press(h, interaction, common.TourAction(found["action"]), found["tid"])
    return True


def layout(t: Text, tour: Tournament) -> ui.LayoutView:
    g, b, s = discord.ButtonStyle.success, discord.ButtonStyle.primary, discord.ButtonStyle.secondary
    styles = {"join": g, "start": b, "leave": s, "cancel": s}
    buttons: list[ui.Item[Any]] = [
        TourButton(x.action, tour.id, f"{x.icon} {t._(x.label)}", styles[x.action])
        for x in common.tour_buttons(tour)
    ]
    colour = views.GREEN if tour.state == PLAYING else views.GOLD
    text = escape(common.tournament_text(t, tour))
    return views.container_layout(ui.TextDisplay(text), *views.button_rows(buttons), colour=colour)


class TournamentPainter:
    """One job a channel's tournament: posts its message at the first change and edits it
    after, always from the freshest record, within the channel's budget."""

    def __init__(
        self, client: discord.Client, tournaments: Tournaments, painter: Painter, activity: Activity
    ) -> None:
        self.client, self.tournaments, self.painter, self.activity = client, tournaments, painter, activity
        self.dirty: set[str] = set()
        self.running: set[str] = set()

    async def changed(self, tour: Tournament) -> None:
        if tour.platform != "dc":
            return
        self.dirty.add(tour.room)
        if tour.room not in self.running:
            self.running.add(tour.room)
            self.activity.spawn(self._run(tour.room), name=f"dc-tournament-{tour.room}")

    async def _run(self, room_id: str) -> None:
        try:
            while room_id in self.dirty:
                self.dirty.discard(room_id)
                try:
                    await self._draw(room_id)
                except Exception:  # the next change draws again
                    log.exception("tournament message of %s", room_id)
        finally:
            self.running.discard(room_id)

    async def _draw(self, room_id: str) -> None:
        tour = await self.tournaments.tournament(room_id)
        if tour is None:
            return
        view = layout(Text(tour.lang), tour)
        channel = self.client.get_partial_messageable(int(tour.chat))
        known = await self.tournaments.tournament_data(room_id, MESSAGE)
        if known is not None:
            while not await self.painter._paced(f"dc:{tour.chat}:edit", EDITS, 0.0):
                pass
            await channel.get_partial_message(int(known)).edit(view=view)
            return
        while not await self.painter._paced(f"dc:{tour.chat}:post", POSTS, 0.0):
            pass
        sent = await channel.send(view=view)
        await self.tournaments.set_tournament_data(room_id, MESSAGE, str(sent.id))


def register(
    tree: app_commands.CommandTree[discord.Client], h: Handlers, served: Served, choices: Any
) -> None:
    @tree.command(name="tournament", description=N_("A tournament in this channel"))
    @app_commands.describe(preset=N_("The game"), rounds=N_("Rounds (Swiss)"))
    @app_commands.choices(preset=choices)
    @app_commands.guild_only()
    @served
    async def tournament(
        interaction: Interaction, preset: Choice[str], rounds: Range[int, 1, 7] | None = None
    ) -> None:
        t = h.user_text(interaction)
        names = common.bot_names(await h.chat_text(interaction))
        out = await h.tournaments.open_tournament(
            "dc",
            str(interaction.channel_id),
            None,
            h.user(interaction),
            preset.value,
            rounds,
            names,
            lang=await h.chat_lang(interaction),
        )
        if out.ok:
            await h.say(interaction, "✅ " + t._("You are signed up."))
        else:
            await h.say(interaction, "⚠️ " + refusal(t, out))
