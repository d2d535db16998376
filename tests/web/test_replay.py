"""Issue 36.4 on the web table: an ended match stepped through card by card in a real
browser (Debian's Chromium through Playwright), opened from its /history link; a forged
link shows an error and no card; a match still on has no link at all."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from adapters.web.server import WebTable
from bot.clock import ManualClock
from bot.history import match_key
from bot.room import User
from bot.service import GameService
from bot.store import Store
from tests.service.conftest import actor, make_settings, people_room, pick
from tests.web.test_browser import WAIT_MS, browser, rds  # noqa: F401 (fixtures)

pytestmark = pytest.mark.asyncio(loop_scope="module")

TWO = [User("tg:1", "Anna"), User("tg:2", "Boris")]


@pytest_asyncio.fixture(loop_scope="module")
async def svc(rds: Redis) -> AsyncIterator[GameService]:  # noqa: F811
    service = GameService(Store(rds), make_settings(default_language="en"), ManualClock())
    yield service


async def play(svc: GameService, rid: str, moves: int | None = None) -> None:
    rng = random.Random(0)
    done = 0
    while moves is None or done < moves:
        room = await svc.room(rid)
        assert room is not None
        if room.state != "playing":
            return
        user, hv = actor(svc, room, TWO)
        assert (await svc.act(pick(hv, rng).token, user)).ok
        done += 1


async def test_i36_a_replay_steps_card_by_card_in_the_browser(svc: GameService, browser: Any) -> None:  # noqa: F811
    rid = await people_room(svc, TWO, seed=7)
    await play(svc, rid, moves=5)
    room = await svc.room(rid)
    assert room is not None
    # the match still on has no replay, so no link
    assert await svc.history.replay_link("tg", "-100", match_key(room.match_id)) is None
    await play(svc, rid)
    [entry] = await svc.history.entries("tg", "-100")
    link = await svc.history.replay_link("tg", "-100", entry["key"])
    rep = await svc.history.replay("tg", "-100", entry["key"])
    assert link is not None and rep is not None
    web = WebTable(svc, svc.chats)
    port = await web.start("127.0.0.1", 0)
    context = await browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    try:
        page = await context.new_page()
        await page.goto(f"http://127.0.0.1:{port}/replay#{link}")
        await page.wait_for_selector("body[data-ready='1']", timeout=WAIT_MS)
        first = rep.deals[0]

        async def hand(seat: int) -> list[str]:
            cards: list[str] = await page.eval_on_selector_all(
                f".rseat[data-seat='{seat}'] .card", "els => els.map(e => e.dataset.card)"
            )
            return cards

        assert await hand(0) == first.hands[0] and await hand(1) == first.hands[1]
        # step through the first deal: each move's cards leave its player's hand
        for n, step in enumerate(first.steps[:12], start=1):
            await page.click("#next")
            await page.wait_for_selector(f"body[data-step='{n}']", timeout=WAIT_MS)
            held = await hand(step.seat)
            assert held == step.hands[step.seat]
            assert not set(step.cards) & set(held)
            said = await page.text_content("#said")
            assert said and ("Anna" in said or "Boris" in said)
        await page.click("#prev")
        await page.wait_for_selector("body[data-step='11']", timeout=WAIT_MS)
        await page.click("#nextdeal")
        await page.wait_for_selector("body[data-deal='1'][data-step='0']", timeout=WAIT_MS)
        assert await hand(0) == rep.deals[1].hands[0]
        # a forged link: an error, no card
        await page.goto(f"http://127.0.0.1:{port}/replay#{link[:-3]}xyz")
        await page.reload()
        await page.wait_for_selector("body[data-error='1']", timeout=WAIT_MS)
        assert "no longer kept" in (await page.text_content("#title") or "")
        assert await page.locator(".card").count() == 0
    finally:
        await context.close()
        await web.close()
