"""A person's hand in Discord: moves of several cards, live hands through refusals, double
presses, restarts and expiring tokens, coming back from a computer player (issue 14: 1, 2,
4, 7), through the real discord.py against the fake Discord."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.fakes.discord_api import FakeDiscord

from .harness import Harness, uid


def seed_match(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """The next match started from Discord is dealt from ``seed``."""

    class Fixed(random.Random):
        def randrange(self, *args: Any, **kwargs: Any) -> int:
            return seed

    monkeypatch.setattr(random, "SystemRandom", Fixed)


async def test_several_cards_offer_only_what_may_be_legal(
        h: Harness, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 7: seed 26 gives Bob (on lead) 6♣ 6♠ 9♠ 10♥. The 6♠ joins a lead of any suit
    (RULES.md 1), so 6♠+6♣, 6♠+9♠ and 6♠+10♥ are leads; 6♣+10♥ or 9♠+10♥ are not and
    nothing offers them."""
    seed_match(monkeypatch, 26)
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel", "players": 2})
    await h.command(fake.bob, ch, "join")
    await h.command(fake.alice, ch, "startgame")
    room = await h.room(ch)
    hand = h.service.hand_of(room, uid(fake.bob))
    assert hand is not None and hand.on_move and sorted(hand.cards) == ["10H", "6C", "6S", "9S"]
    msg = await h.open_hand(fake.bob, ch)
    labels = {b["label"] for b in msg.buttons()}
    leads = {lb for lb in labels if lb.startswith("Lead") and lb.count(" ") == 2}
    assert leads == {"Lead 6♣ 6♠", "Lead 9♠ 6♠", "Lead 10♥ 6♠"}, labels
    assert not [c for c in msg.iter_components() if c.get("type") == 3]  # no free pick
    mixed = next(c for c in hand.choices if sorted(c.cards) == ["10H", "6S"])
    inter = await h.play(fake.bob, ch, mixed, msg)
    assert inter.response_type == 7
    table = await h.table(ch)
    assert "10♥ 6♠" in table.text() or "6♠ 10♥" in table.text()
