"""How games end, and the words around it (issue 14, item 8), through the real discord.py
against the fake Discord."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from bot.room import Room, User
from engine.cards import CARD_TEXT
from engine.families.trump.match import trump_order, trump_suit
from engine.presets import PRESETS
from tests.fakes.discord import FakeChannel, FakeDiscord, FakeMessage
from tests.pieces import pieces

from .harness import DELAY, Harness, mover, people_and_bots, refusal_text, uid

ROOT = Path(__file__).resolve().parents[2]


async def test_cancel_and_score_say_what_happened(h: Harness, fake: FakeDiscord) -> None:
    ch = fake.games
    await h.command(fake.alice, ch, "newgame")
    await h.command(fake.alice, ch, "cancel")
    inter = await h.command(fake.bob, ch, "score")
    assert "cancelled before the first deal" in h.reply(inter).text()
    inter = await h.command(fake.alice, ch, "cancel")  # again
    assert "cancelled already" in refusal_text(h, inter)
    assert "no table here" not in refusal_text(h, inter)

    # a match cancelled in its first deal: /score tells when, with the score then
    await people_and_bots(h, fake, ch)
    await h.command(fake.alice, ch, "cancel")
    inter = await h.command(fake.bob, ch, "score")
    text = h.reply(inter).text()
    assert "cancelled during deal 1" in text and "Score:" in text
    assert not h.reply(inter).ephemeral


async def test_cancel_of_a_finished_match_says_it_is_over(
    h: Harness, fake: FakeDiscord, seeded: None
) -> None:
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel-60", "players": 2})
    await h.command(fake.alice, ch, "addbot")
    await h.command(fake.alice, ch, "startgame")
    room = await h.play_match(ch, [fake.alice], seed=4)
    assert room.state == "finished"
    inter = await h.command(fake.alice, ch, "cancel")
    assert "over already" in refusal_text(h, inter) and "Another match" in refusal_text(h, inter)


async def test_leave_mid_match_explains_the_way_out(h: Harness, fake: FakeDiscord) -> None:
    ch = fake.games
    await people_and_bots(h, fake, ch)
    inter = await h.command(fake.bob, ch, "leave")
    text = refusal_text(h, inter)
    assert "cannot be left now" in text and "after 2 missed turns" in text and "/cancel" in text
    assert (await h.room(ch)).seat_of(uid(fake.bob)) is not None
    fake.bob.locale = "ru"
    inter = await h.command(fake.bob, ch, "leave")
    assert "после 2 пропущенных ходов" in refusal_text(h, inter)


@pytest.mark.parametrize("preset", [p for p, spec in PRESETS.items() if spec.family == "trump"])
async def test_permanent_trump_hands_show_trumps_last(
    h: Harness, fake: FakeDiscord, seeded: None, preset: str
) -> None:
    """UX.md: the plain cards by suit and rank, then the trumps, the strongest at the right
    (RULES.md 4a's ladder), in every permanent-trump preset."""
    ch = fake.games
    people = [fake.alice, fake.bob, fake.carol, fake.dave]
    await h.command(fake.alice, ch, "newgame", {"preset": preset})
    table = await h.table(ch)
    for u in people[1:]:
        await h.press(u, table, "kz:t:join")
    await h.press(fake.alice, table, "kz:t:start")
    room = await _past_the_cut(h, fake, ch)
    ladder = [CARD_TEXT[c] for c in trump_order(room.preset, trump_suit(room.preset, room.options))]
    for u in people:
        cards = _cards_shown(await h.open_hand(u, ch))
        own = h.service.hand_of(room, uid(u))
        assert own is not None and sorted(cards) == sorted(own.cards)
        trumps = [c for c in cards if c in ladder]
        plain = cards[: len(cards) - len(trumps)]
        assert cards[len(plain) :] == trumps  # the trumps come last
        assert trumps == sorted(trumps, key=lambda c: -ladder.index(c))  # weakest first
        ids = [CARD_TEXT.index(c) for c in plain]  # the engine's order: by suit, then rank
        assert ids == sorted(ids)


async def _past_the_cut(h: Harness, fake: FakeDiscord, ch: FakeChannel) -> Room:
    """The room once Nizhny Novgorod's cut of the deck is made (at once elsewhere)."""
    room = await h.room(ch)
    for _ in range(4):  # Nizhny Novgorod's deal begins with a cut of the deck
        cutter = mover(room, fake)
        hand = h.service.hand_of(room, uid(cutter)) if cutter is not None else None
        cut = next((c for c in hand.choices if c.kind == "cut"), None) if hand else None
        if cutter is None or cut is None:
            break
        await h.play(cutter, ch, cut)
        room = await h.room(ch)
    return room


def _cards_shown(msg: FakeMessage) -> list[str]:
    """The cards of an open hand's "Your cards:" line, as the engine spells them (QC)."""
    symbols = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
    line = next(x for x in msg.text().split("\n") if x.startswith("Your cards:"))
    shown = line.removeprefix("Your cards: ").split(" ")
    return [c[:-1] + next(k for k, v in symbols.items() if v == c[-1]) for c in shown]


async def test_no_voice_warnings_at_start(h: Harness, caplog: pytest.LogCaptureFixture) -> None:
    """The bot has no voice: discord.py's PyNaCl / davey warnings are silenced."""
    assert h.client.is_ready()
    noise = [
        r
        for r in caplog.records
        if r.levelno >= logging.WARNING and "voice will NOT be supported" in r.getMessage()
    ]
    assert not noise


def _client_warnings(*imports: str) -> str:
    """What a fresh process logs when it makes a discord.py client after ``imports``
    (discord.py warns once a process: only a process of its own shows it)."""
    code = "; ".join(
        [
            "import logging",
            *(f"import {m}" for m in imports),
            "import discord",
            "logging.basicConfig(level=logging.WARNING)",
            "discord.Client(intents=discord.Intents.default())",
        ]
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    return out.stderr


def test_the_voice_warnings_are_silenced_for_every_client_of_the_process() -> None:
    """Without the adapter a client warns (PyNaCl and davey are not installed: the test
    would prove nothing otherwise); with it, not a word."""
    bare = _client_warnings()
    assert "PyNaCl is not installed" in bare and "davey is not installed" in bare
    assert "voice will NOT be supported" not in _client_warnings("adapters.discord.app")


async def test_r33_after_a_deal_cancel_asks_the_others_and_they_agree_on_the_table(
    h: Harness, fake: FakeDiscord
) -> None:
    """Issue 33 item 7: past the first deal Alice's /cancel asks Bob; the table shows the
    request with its buttons; Bob agrees there and the game ends, unrecorded."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    for _ in range(3000):  # on to deal 2, people by the service, computers by the timers
        room = await h.room(ch)
        if room.load_match().deal_no > 1:
            break
        user = mover(room, fake)
        hand = h.service.hand_of(room, uid(user)) if user is not None else None
        if user is not None and hand is not None and hand.choices:
            assert (await h.service.act(hand.choices[0].token, User(uid(user), user.username))).ok
        else:
            h.clock.advance(DELAY)
            await pieces(h.service).timers.run_timers()
    await h.settle()
    inter = await h.command(fake.alice, ch, "cancel")
    assert "agree" in h.reply(inter).text() and h.reply(inter).ephemeral
    table = await h.table(ch)
    assert "kz:t:agree" in table.custom_ids() and "kz:t:giveup" in table.custom_ids()
    assert "asks to end the match" in table.text()
    await h.press(fake.bob, table, "kz:t:agree")
    room = await h.room(ch)
    assert room.state == "finished" and room.result == {"cancelled": True}
    assert await pieces(h.service).stats.recent_matches("dc", str(ch.id)) == []
