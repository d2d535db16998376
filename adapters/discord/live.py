"""Each person's one live hand at a table, kept where every process finds it.

A hand is an ephemeral message: only the token of an interaction that showed it can edit it,
for 15 minutes. So whenever an interaction shows a hand (a "Show my hand" answer, a move or
a refusal edited into the pressed hand, a refresh), the token, its end and the message go
into the room's platform data (``dc_hand`` of that person, through the service): a
restarted process, or another worker, keeps updating the hand. A newer hand retires the
older (it says so, and loses its buttons): one live hand per person per table.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.http import handle_message_parameters
from discord.webhook.async_ import async_context

from adapters.common.hands import LiveHand, hand_signature
from adapters.common.i18n import N_
from adapters.common.render import Text
from adapters.discord import views
from bot.platform import Platform
from bot.room import Room
from bot.service import GameService
from bot.views import HandView

log = logging.getLogger(__name__)

RECORD = "dc_hand"
TOKEN_LIFE = 15 * 60.0  # Discord: an interaction token edits its messages for 15 minutes
# our clock reads the interaction a moment after Discord made it: count from a bit earlier
SLACK = 10.0
WARN_AT_MOST = 10 * 60.0  # a hand says its token's end is near this long before it at most
RETIRED = N_("This copy of your hand is no longer updated: your cards are in the message you used last.")
EXPIRING = N_("This hand stops updating in a few minutes: press “Refresh” to keep it live.")


async def edit_original(client: discord.Client, token: str, view: discord.ui.LayoutView) -> None:
    """Edit the message an interaction answered with only its token: its response, or the
    component's message after an update (Discord's ``@original``). This is what
    ``Interaction.edit_original_response`` sends, for an interaction of an earlier moment or
    of another process (discord.py has no public call taking a bare token for it)."""
    app_id = client.application_id
    assert app_id is not None
    hook = discord.Webhook.partial(app_id, token, client=client)
    with handle_message_parameters(view=view) as params:
        await async_context.get().edit_original_interaction_response(
            app_id,
            token,
            session=hook.session,
            proxy=hook.proxy,
            proxy_auth=hook.proxy_auth,
            payload=params.payload,
            multipart=params.multipart,
            files=params.files,
        )


class LiveHands:
    def __init__(self, client: discord.Client, games: GameService, platform: Platform) -> None:
        self.client = client
        self.service = games
        self.leases = platform.leases
        self.platform_data = platform.data
        # the newest record this process wrote or read (the room's snapshot may be older)
        self.local: dict[tuple[str, str], LiveHand] = {}
        # tokens given up here: an older snapshot of the room must not bring them back
        self.dead: set[str] = set()

    def current(self, room: Room, user_id: str) -> LiveHand | None:
        """The person's live hand: of the record in the room's data and the one this
        process knows, the newer (a later token ends later)."""
        stored = LiveHand.from_json((room.sdata.get(user_id) or {}).get(RECORD))
        known = self.local.get((room.id, user_id))
        newest = max(
            (r for r in (stored, known) if r is not None and r.ref not in self.dead),
            key=lambda r: r.expires or 0.0,
            default=None,
        )
        if newest is not None:
            self.local[(room.id, user_id)] = newest
        return newest

    def people(self, room: Room) -> list[str]:
        """Seated people with a live hand (records in the room, or known here)."""
        out = []
        for seat in room.seats:
            if (
                seat is not None
                and seat.user
                and (RECORD in (room.sdata.get(seat.user) or {}) or (room.id, seat.user) in self.local)
            ):
                out.append(seat.user)
        return out

    def drop_room(self, room_id: str) -> None:
        """An ended room: this process keeps nothing of its hands (Redis has the records)."""
        for key in [k for k in self.local if k[0] == room_id]:
            del self.local[key]

    async def remember(
        self,
        room: Room,
        user_id: str,
        interaction: discord.Interaction[Any],
        message_id: int,
        hand: HandView,
        lang: str,
    ) -> None:
        """This interaction's message now shows the person's hand: it is the live one; an
        older live hand in another message is retired."""
        previous = self.current(room, user_id)
        now = self.service.clock.now()
        rec = LiveHand(interaction.token, message_id, now + TOKEN_LIFE - SLACK, hand_signature(hand), lang)
        self.local[(room.id, user_id)] = rec
        await self.platform_data.set_seat_data(room.id, user_id, **{RECORD: rec.to_json()})
        # this version is on screen: no worker's painter draws it again
        await self.leases.end_paint(room.id, f"hand:{user_id}", room.version)
        if previous is not None and not rec.same_message(previous) and previous.usable(now):
            await self.retire(previous)

    async def forget(self, room_id: str, user_id: str, rec: LiveHand) -> None:
        """The hand can no longer be edited (its token ran out, Discord refused)."""
        self.dead.add(rec.ref)
        if len(self.dead) > 10_000:  # a long-running process: old tokens are long dead
            self.dead.clear()
        if self.local.get((room_id, user_id)) == rec:
            del self.local[(room_id, user_id)]
        await self.platform_data.set_seat_data(room_id, user_id, **{RECORD: None})

    async def retire(self, rec: LiveHand) -> None:
        t = Text(rec.lang)
        try:
            await edit_original(self.client, rec.ref, views.notice_layout(t._(RETIRED)))
        except discord.HTTPException as e:
            log.info("retiring a hand: %s", e)

    def expiring(self, rec: LiveHand) -> bool:
        """Whether the hand should say now that it stops updating soon. A hand is drawn
        only when its room changes, and a playing room changes at least once a turn's time
        (the person on move plays, or a computer player plays for him): so a hand whose
        token ends within a turn's time says so already, or the next change might come
        only after its end and the hand would go stale without a word. (Never earlier
        than ten minutes before the end: a table of very long turns is told late rather
        than at every drawing.)"""
        if rec.expires is None:
            return False
        settings = self.service.settings
        turn = settings.turn_seconds + settings.bot_delay_seconds + rec.MARGIN
        ahead = max(rec.WARN, min(turn, WARN_AT_MOST))
        return self.service.clock.now() >= rec.expires - ahead

    async def draw(self, room: Room, user_id: str, rec: LiveHand, hand: HandView) -> LiveHand:
        """Edit the live hand to show ``hand`` (with a word when its token is about to run
        out); the record as drawn. Raises ``discord.HTTPException`` if Discord refused."""
        t = Text(rec.lang)
        expiring = self.expiring(rec)
        notice = "⌛ " + t._(EXPIRING) if expiring else None
        await edit_original(self.client, rec.ref, views.hand_layout(t, hand, notice))
        drawn = LiveHand(rec.ref, rec.message, rec.expires, signature(hand, expiring), rec.lang)
        self.local[(room.id, user_id)] = drawn
        return drawn


def signature(hand: HandView, expiring: bool = False) -> str:
    """What a drawn hand shows, the word about its token's end included."""
    return hand_signature(hand) + ("|expiring" if expiring else "")
