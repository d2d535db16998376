"""A chat's last matches and their replays (issue 36.4).

When a match ends (played out or given up; a cancelled one is not a match), the service
keeps for its chat a short summary (date, preset, line-up, result) and the match's log in
compact form (its seed and the packed actions of every dealing: the decks follow from the
seed, ``docs/deal-log.md``), newest first, at most ``KEEP`` of them, for ``TTL`` seconds.
A room keeps only its last ``LOG_CHARS`` of actions (``bot/play.py``), so while a match is
on, every dealing that ended is copied beside it (``keep_dealings``) and the two are joined
at the end.

Only matches that ended are ever kept: hands and face-down cards of a match still being
played appear nowhere here. A replay is built again from the log by the engine, so what it
shows is what was played.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import zlib
from base64 import urlsafe_b64encode
from dataclasses import dataclass, field
from typing import Any

from bot import keys
from bot.changes import Change
from bot.clock import Clock
from bot.records import chat_key
from bot.room import PLAYING, Room, Seat
from bot.store import Store
from bot.views import Line, TableView, event_lines, table_view
from engine.actions import Action
from engine.cards import CARD_TEXT, SUIT_LETTERS
from engine.codec import unpack_action
from engine.errors import IllegalAction
from engine.game import Game
from engine.log import to_log
from engine.registry import new_match

log = logging.getLogger(__name__)

KEEP = 20  # matches kept per chat
TTL = 30 * 24 * 3600  # a chat's history lasts this long after its last match
# the most a match's compact log may take (deflated): a longer one keeps its summary only.
# A 172-deal petukh-25 match of rules players packs into 16,860 characters, about 8 KB
# deflated; a Kozel match into 1-2 KB (docs in README: figures)
MAX_LOG_BYTES = 24 * 1024
# the lines that end a dealing: the dealings before it are complete, copied beside the room
DEALING_ENDS = frozenset({"deal_ended", "deal_scored", "redeal_penalty", "shuffled", "boast_void"})
# events a replay words itself from the action (it shows the cards that went face down)
REVEALED = {"thrown": "replay_thrown", "laid": "replay_laid", "exchanged": "replay_exchanged"}
# events a replay's deal header already tells, or that say nothing once the cards are shown
UNSHOWN = frozenset({"deal_started", "shuffled", "match_ended", "cards_drawn"})


def match_key(match_id: str) -> str:
    """A short, fixed-size name of a match for buttons and links (8 characters)."""
    return urlsafe_b64encode(hashlib.blake2s(match_id.encode(), digest_size=6).digest()).decode()


def ended_match(room: Room, match: Game) -> dict[str, Any]:
    """What history keeps of the match that ``room`` has just ended: taken before anything
    (an elimination's next match) replaces its seats or its log."""
    rules = room.rules
    players = room.players or room.size
    seats = room.seats[:players]
    result = room.result or {}
    summary = {
        "key": match_key(room.match_id),
        # the web table's replay link carries it: knowing a chat's id is not enough to look
        "secret": secrets.token_urlsafe(9),
        "preset": room.preset,
        "options": dict(room.options),
        "names": [s.name if s is not None else "?" for s in seats],
        "computer": [bool(s is not None and s.computer and not s.auto) for s in seats],
        "sides": [list(rules.side_seats(side)) for side in range(rules.sides)],
        "winners": list(result.get("winners", [])),
        "score": list(result.get("score", [])),
        **({"abandoned": result["abandoned"]} if result.get("abandoned") else {}),
    }
    return {"id": room.match_id, "summary": summary, "seed": match.seed, "dealings": list(room.log)}


def dealings_to_keep(room: Room, change: Change) -> dict[int, str]:
    """The complete dealings of a match still on, to copy beside the room when a dealing
    has just ended (empty otherwise): the room drops its oldest ones in a long match."""
    if room.state != PLAYING or not any(ln.key in DEALING_ENDS for ln in change.lines):
        return {}
    return {i: packed for i, packed in enumerate(room.log[:-1]) if packed}


def full_log(ended: dict[str, Any], kept: dict[int, str]) -> bytes | None:
    """The match's compact log, deflated: its own dealings, the ones the room dropped
    taken from ``kept``; None when one is missing or the log is too long to keep."""
    dealings = [packed or kept.get(i, "") for i, packed in enumerate(ended["dealings"])]
    if any(not d for d in dealings[:-1]):
        return None
    blob = zlib.compress(json.dumps({"seed": ended["seed"], "dealings": dealings}).encode(), 6)
    return blob if len(blob) <= MAX_LOG_BYTES else None


# --- replays -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayStep:
    """One action, with every card it moved (face-down ones too: the match is over) and
    the lines it caused (a trick taken, the deal's end)."""

    seat: int
    kind: str
    cards: list[str]
    lines: list[Line]
    hands: list[list[str]] = field(default_factory=list)  # every hand after the step


@dataclass(frozen=True)
class ReplayDeal:
    """One dealing of the cards: its number, dealer, trump and each seat's hand as dealt."""

    no: int
    deal_no: int
    dealer: int
    trump: str | None
    trump_card: str | None
    hands: list[list[str]]
    steps: list[ReplayStep] = field(default_factory=list)


@dataclass(frozen=True)
class Replay:
    summary: dict[str, Any]
    table: TableView  # the seats' names, sides and the score's target, for wording lines
    deals: list[ReplayDeal]


def unpack_log(blob: bytes) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(zlib.decompress(blob))
    return data


def _room_of(summary: dict[str, Any]) -> Room:
    """A finished room of the match's seats (for names in lines and a table to word them)."""
    seats: list[Seat | None] = [
        Seat(None if bot else f"p{i}", name, bot="normal" if bot else None)
        for i, (name, bot) in enumerate(zip(summary["names"], summary["computer"], strict=True))
    ]
    n = len(seats)
    room = Room("replay", "", "", None, summary["preset"], summary["options"], n, seats, "", state="finished")
    room.players = n
    return room


def replay_of(summary: dict[str, Any], data: dict[str, Any]) -> Replay:
    """The match played again from its log, dealing by dealing. Raises ``ValueError`` on a
    log the engine refuses (it was not this match's)."""
    room = _room_of(summary)
    match = new_match(room.rules, seed=data["seed"])
    deals = []
    for no, packed in enumerate(data["dealings"], start=1):
        deal = _deal_start(match, no)
        for text in packed.split(","):
            if text:
                seat, action = unpack_action(text)
                deal.steps.append(_step(room, match, seat, action))
        deals.append(deal)
    room.keep_match(match)
    return Replay(summary, table_view(room, match, 0.0), deals)


def _deal_start(match: Game, no: int) -> ReplayDeal:
    public = match.observe(None)
    hands = [[CARD_TEXT[c] for c in match.observe(s).hand] for s in range(match.rules.players)]
    return ReplayDeal(
        no,
        public.deal_no,
        public.dealer,
        SUIT_LETTERS[public.trump],
        None if public.trump_card is None else CARD_TEXT[public.trump_card],
        hands,
    )


def _step(room: Room, match: Game, seat: int, action: Action) -> ReplayStep:
    try:
        events = match.apply(seat, action)
    except IllegalAction as e:
        raise ValueError(f"the log does not replay: {e}") from None
    cards = [CARD_TEXT[c] for c in action.cards]
    lines = []
    for line in event_lines(room, events):
        if line.key in UNSHOWN:
            continue
        if line.key in REVEALED:
            line = Line(REVEALED[line.key], {**line.params, "cards": cards})
        lines.append(line)
    hands = [[CARD_TEXT[c] for c in match.observe(s).hand] for s in range(match.rules.players)]
    return ReplayStep(seat, action.kind, cards, lines, hands)


def deal_log(summary: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The match as a deal log of ``docs/deal-log.md`` (every dealing with its deck), with
    the seats' names: what ``python -m engine replay`` reads."""
    room = _room_of(summary)
    match = new_match(room.rules, seed=data["seed"])
    for packed in data["dealings"]:
        for text in packed.split(","):
            if text:
                match.apply(*unpack_action(text))
    return {**to_log(match), "names": summary["names"]}


# --- the service's side ------------------------------------------------------------------


KEEP_REPLAYS = 16  # replays played again kept in a process (a long match's is some 100 KB)


class ChatHistory:
    """A chat's history: the rooms service keeps it at every commit (``keep``); the
    history and replay screens read it."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._replays: dict[tuple[str, str, str], Replay] = {}  # the last replays played again

    async def keep(self, room: Room, change: Change) -> None:
        """After a committed change: a dealing that ended is copied beside the room; a
        match that ended joins its chat's history. Never undoes the move: a failure is
        logged (the match then has no replay)."""
        try:
            if change.ended is not None:
                await self._remember_match(room, change.ended)
                return
            kept = dealings_to_keep(room, change)
            if kept:
                await self.store.keep_dealings(room.id, room.match_id, kept, TTL)
        except Exception:
            log.exception("history of %s", room.id)

    async def _remember_match(self, room: Room, ended: dict[str, Any]) -> None:
        kept = await self.store.kept_dealings(room.id, ended["id"])
        blob = full_log(ended, kept)
        summary = {**ended["summary"], "date": self.clock.now(), "replay": blob is not None}
        chat = keys.chat_of(room.id)
        await self.store.push_history(chat, summary, blob or b"", KEEP, TTL)
        await self.store.drop_dealings(room.id, ended["id"])

    async def entries(self, platform: str, chat: str) -> list[dict[str, Any]]:
        """The chat's ended matches, newest first: summaries (``key``, ``date``, ``preset``,
        ``names``, ``sides``, ``winners``, ``score``, ``replay``...)."""
        return await self.store.history(chat_key(platform, chat))

    async def history_entry(self, platform: str, chat: str, key: str) -> dict[str, Any] | None:
        for entry in await self.entries(platform, chat):
            if entry.get("key") == key:
                return entry
        return None

    async def replay(self, platform: str, chat: str, key: str) -> Replay | None:
        """The replay of the chat's match ``key`` (None: not kept, or kept without a log).
        A kept match never changes: the last few replays played again are reused, so
        pressing through a long match's pages (or asking its web page over and over)
        replays it once, not at every press."""
        cache = self._replays
        hit = cache.get((platform, chat, key))
        if hit is not None:
            return hit
        found = await self._match_log(platform, chat, key)
        if found is None:
            return None
        try:
            rep = replay_of(*found)
        except (ValueError, KeyError, IndexError):
            log.exception("replay %s of %s", key, chat)
            return None
        cache[(platform, chat, key)] = rep
        while len(cache) > KEEP_REPLAYS:  # the oldest first
            cache.pop(next(iter(cache)))
        return rep

    async def replay_link(self, platform: str, chat: str, key: str) -> str | None:
        """The web table's link to the replay of match ``key`` (None: no replay kept)."""
        entry = await self.history_entry(platform, chat, key)
        if entry is None or not entry.get("replay") or not entry.get("secret"):
            return None
        return f"{chat_key(platform, chat)}.{key}.{entry['secret']}"

    async def replay_by_link(self, link: str) -> Replay | None:
        """The replay a web link names (None: a forged, stale or malformed link)."""
        parts = link.rsplit(".", 2) if isinstance(link, str) and len(link) <= 120 else []
        if len(parts) != 3 or ":" not in parts[0]:
            return None
        platform, chat = parts[0].split(":", 1)
        entry = await self.history_entry(platform, chat, parts[1])
        if entry is None or not hmac.compare_digest(str(entry.get("secret", "")), parts[2]):
            return None
        return await self.replay(platform, chat, parts[1])

    async def replay_log(self, platform: str, chat: str, key: str) -> dict[str, Any] | None:
        """The match ``key`` of the chat as a deal log (``docs/deal-log.md``)."""
        found = await self._match_log(platform, chat, key)
        if found is None:
            return None
        try:
            return deal_log(*found)
        except (ValueError, KeyError, IndexError, IllegalAction):
            log.exception("deal log %s of %s", key, chat)
            return None

    async def _match_log(
        self, platform: str, chat: str, key: str
    ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        entry = await self.history_entry(platform, chat, key)
        if entry is None or not entry.get("replay"):
            return None
        blob = await self.store.history_log(chat_key(platform, chat), key)
        if not blob:
            return None
        return entry, unpack_log(blob)
