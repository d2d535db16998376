"""The console table: one person against computer players, through the real service and store.

``python -m bot play [--preset kozel] [--players 4] [--seed N] [--lang en]``. The game lives
in Redis (embedded by default): quit with ``q`` and run the command again to go on.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import TextIO

from adapters.common.lobby import LEVELS
from adapters.common.render import DEAL_END_KEYS, Text
from bot.clock import SystemClock
from bot.config import Settings
from bot.metrics import Metrics
from bot.room import FINISHED, PLAYING, User
from bot.service import GameService, Refused, Services
from bot.views import Choice, HandView, Line
from engine.actions import KINDS
from engine.cards import CardError, parse_card

PLATFORM = "cn"
CHAT = "local"
YOU = "cn:you"


class Console:
    def __init__(self, services: Services, text: Text, out: TextIO, inp: TextIO) -> None:
        service = self.service = services.games
        self.timers = services.timers
        self.text = text
        self.out = out
        self.inp = inp
        service.on_change(self._changed)
        self._last_deal_line: Line | None = None

    def say(self, s: str = "") -> None:
        self.out.write(s + "\n")
        self.out.flush()

    async def _changed(self, room: object, lines: list[Line]) -> None:
        from bot.room import Room

        assert isinstance(room, Room)
        table = self.service.table_of(room)
        for ln in lines:
            if ln.key in DEAL_END_KEYS:
                self.say("")
                self.say("📋 " + self.text.deal_result(ln, table))
                self.say("")
                continue
            if ln.key in ("cards_drawn", "deal_started", "match_ended"):
                continue
            words = self.text.line(ln, table)
            if words:
                self.say("  " + words)

    async def read(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = await asyncio.to_thread(self.inp.readline)
        return None if line == "" else line.strip()

    def pick(self, hand: HandView, answer: str) -> Choice | None:
        if answer.isdigit():
            i = int(answer) - 1
            return hand.choices[i] if 0 <= i < len(hand.choices) else None
        words = answer.replace(",", " ").split()
        kind = None
        short = {"l": "lead", "b": "beat", "t": "throw", "p": "play", "d": "declare"}
        if words and (words[0].lower() in short or words[0].lower() in KINDS):
            kind = short.get(words[0].lower(), words[0].lower())
            words = words[1:]
        if kind == "cut" or not words:
            for c in hand.choices:
                if c.kind == kind and (kind != "cut" or [str(c.number)] == words):
                    return c
            return None
        try:
            cards = sorted(parse_card(w) for w in words)
        except CardError:
            return None
        from engine.cards import CARD_TEXT

        wanted = [CARD_TEXT[c] for c in cards]
        for c in hand.choices:
            if sorted(c.cards, key=parse_card) == wanted and (kind is None or c.kind == kind):
                return c
        return None

    async def run(
        self,
        preset: str,
        players: int,
        seed: int | None,
        options: dict[str, object] | None,
        bots: Sequence[str] = ("normal",),
    ) -> int:
        svc = self.service
        # a name for the lines in the third person ("Player leads"): "You" would not agree
        you = User(YOU, self.text._("Player"))
        refused = await self._open(you, preset, players, seed, options, bots)
        if refused is not None:
            return refused
        self.say(self.text._("Type ? for a hint: what a strong computer player would play."))
        while True:
            while await self.timers.run_timers():
                pass
            room = await svc.room(_room_id())
            assert room is not None
            if room.state != PLAYING:
                break
            hand = svc.hand_of(room, YOU)
            if hand is None or not hand.choices:
                await asyncio.sleep(0.01)
                continue
            if not await self._turn(you, hand):
                self.say(self.text._("The game is saved. Run the same command to go on."))
                return 0
        await self._over()
        return 0

    async def _open(
        self,
        you: User,
        preset: str,
        players: int,
        seed: int | None,
        options: dict[str, object] | None,
        bots: Sequence[str],
    ) -> int | None:
        """The saved game goes on, or a new one starts (None); an exit code if refused."""
        svc = self.service
        room = await svc.room(_room_id())
        if room is not None and room.state != FINISHED and room.preset == preset:
            self.say(self.text._("Going on with the saved game."))
            return None
        if room is not None and room.state != FINISHED:
            await svc.cancel(room.id, you, is_admin=True)
        out = await svc.create(PLATFORM, CHAT, None, you, preset, options, size=players)
        if not out.ok:
            self.say(self.text.reason(out.reason) + " " + str(out.data.get("message", "")))
            return 2
        # --bots: one level for every computer player, or one each
        levels = list(bots) if len(bots) == players - 1 else [bots[0]] * (players - 1)
        for level in levels:
            added = await svc.add_bot(_room_id(), you, level)
            if not added.ok:
                self.say(self.text.reason(added.reason) + " " + ", ".join(LEVELS))
                await svc.cancel(_room_id(), you, is_admin=True)
                return 2
        out = await svc.start(_room_id(), you, seed=seed)
        if not out.ok:
            self.say(self.text.reason(out.reason))
            return 2
        return None

    async def _turn(self, you: User, hand: HandView) -> bool:
        """The table, the hand and its moves; one answer read and made. False: quit."""
        self.say("")
        self.say(self.text.table(hand.table))
        self.say("")
        self.say(self.text.hand(hand))
        for i, c in enumerate(hand.choices, start=1):
            label = (
                self.text.bare_choice(c)
                if not c.mask and c.kind != "declare"
                else self.text.choice(c.kind, c.cards)
            )
            self.say(f"  {i:2}) {label}")
        answer = await self.read(self.text._("Your move (number, or cards like 'b 10H QH'; q to quit): "))
        if answer is None or answer.lower() in ("q", "quit", "exit"):
            return False
        if answer.lower() in ("?", "h", "hint"):  # every opponent is a computer player
            try:
                found = await self.service.hint(_room_id(), YOU)
            except Refused as r:
                self.say(self.text.reason(r.reason))
                return True
            self.say(self.text.hint_text(found) if found else "💡 " + self.text._("No hint now."))
            return True
        choice = self.pick(hand, answer)
        if choice is None:
            self.say(self.text._("Not one of the moves listed."))
            return True
        out = await self.service.act(choice.token, you)
        if not out.ok:
            self.say(self.text.reason(out.reason))
        return True

    async def _over(self) -> None:
        svc = self.service
        room = await svc.room(_room_id())
        assert room is not None
        table = svc.table_of(room)
        self.say("")
        self.say(self.text.table(table))
        if room.result and YOU in [
            room.seats[s].user for s in room.result.get("winners", []) if room.seats[s] is not None
        ]:
            self.say("🏆 " + self.text._("You won!"))
        else:
            self.say(self.text._("The match is over."))


def _room_id() -> str:
    return f"{PLATFORM}:{CHAT}"


async def play(
    settings: Settings,
    preset: str,
    players: int,
    seed: int | None,
    lang: str,
    options: dict[str, object] | None = None,
    out: TextIO = sys.stdout,
    inp: TextIO = sys.stdin,
    metrics: Metrics | None = None,
    bots: Sequence[str] = ("normal",),
) -> int:
    # computer players move at once and a person is never hurried at the console
    settings = settings.model_copy(update={"bot_delay_seconds": 0.0, "turn_seconds": 10**9})
    # one clear line when Redis does not answer
    service = await GameService.open(settings, SystemClock(), metrics=metrics)
    try:
        console = Console(Services.on(service), Text(lang), out, inp)
        return await console.run(preset, players, seed, options, bots)
    finally:
        await service.close()
