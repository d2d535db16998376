"""Issue 34 in a real browser: Chromium (Debian's, /usr/bin/chromium) driven by Playwright.

Through the fake Bot API and the real service: the table is opened in the group by
commands, its "Open the table" button gives the link; two people open the Mini App in two
browser contexts (initData signed with the fake's bot token, as Telegram signs it) and play
a whole deal by tapping cards, computer players in the other seats; a third person
watches. Every WebSocket frame each context receives is checked against what that person
may not see (from the engine, at that moment): none may name such a card. A forged and an
expired initData are refused on the page. In the kozel deal the web worker is restarted
half way (a new service and server on the same Redis and port): the pages reconnect and
play goes on. Screenshots at 390x844 and 1280x800 are saved (``artifacts/web``) and the
page is checked for overflow (nothing outside the viewport, no text over a card).

Waits are signals (Playwright waits on the page's own state: its version, its
connection); the service's time is the harness's manual clock.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from adapters.common.render import Text
from adapters.web.server import WebTable
from bot.room import Room, User
from bot.service import GameService
from bot.store import Store
from bot.views import Choice, HandView
from tests.conftest import TEST_MARK
from tests.service.test_abuse import past_the_first_deal
from tests.telegram.harness import Env, telegram
from tests.telegram.test_tables import open_table
from tests.web.harness import hidden_from, leaked, sign_init_data

pytestmark = pytest.mark.asyncio(loop_scope="module")

CHROMIUM = "/usr/bin/chromium"
# without the networking flags Chromium's own connections are refused by the closed network
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", ROOT / "artifacts")) / "web"
WAIT_MS = 30_000  # a bound for a broken page, never a pause
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

# Telegram's WebApp object as the Mini App sees it inside Telegram (its script is not
# loaded: the tests have no internet); haptic feedback is counted
TELEGRAM = """
window.__haptics = [];
window.Telegram = { WebApp: {
  initData: %s,
  initDataUnsafe: { start_param: %s },
  themeParams: {}, colorScheme: "dark",
  ready() {}, expand() {},
  HapticFeedback: {
    impactOccurred(s) { window.__haptics.push("impact:" + s); },
    notificationOccurred(s) { window.__haptics.push("note:" + s); },
    selectionChanged() { window.__haptics.push("select"); },
  },
} };
"""

# every element inside the viewport; no text box (names, lines, prompt, buttons) over a card
LAYOUT = """
() => {
  const vw = innerWidth, vh = innerHeight, bad = [];
  const skip = (el) => el.closest("#overlay, #toast, #banner, .gone, [hidden]");
  const box = (el) => {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (!r.width || !r.height || cs.display === "none" || cs.visibility === "hidden") return null;
    return r;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && el.className.baseVal === undefined ? "." + el.className.split(" ").join(".") : "") +
    (el.dataset.card ? "[" + el.dataset.card + "]" : "") + " " + (el.textContent || "").slice(0, 30);
  for (const el of document.body.querySelectorAll("*")) {
    if (skip(el)) continue;
    const r = box(el);
    if (r && (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1))
      bad.push("outside: " + name(el) + " " + JSON.stringify([r.left, r.top, r.right, r.bottom]));
  }
  const texts = [...document.querySelectorAll(".txt, .btn")].filter((e) => !skip(e) && box(e));
  const cards = [...document.querySelectorAll(".card")].filter((e) => !skip(e) && box(e));
  for (const t of texts) {
    const a = box(t);
    for (const c of cards) {
      const b = box(c);
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) bad.push("text over a card: " + name(t) + " / " + name(c));
    }
  }
  return bad;
}
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Any]:
    """One Chromium for the module. Missing in CI: a failure, not a skip."""
    if not Path(CHROMIUM).exists():
        message = f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            await b.close()


@pytest_asyncio.fixture(loop_scope="module")
async def rds(redis_url: str) -> AsyncIterator[Redis]:
    """The ``redis`` fixture, on the module's event loop (the browser's)."""
    r = Redis.from_url(redis_url)
    if await r.dbsize() and not await r.exists(TEST_MARK):
        await r.aclose()
        pytest.exit(f"REDIS_URL={redis_url} holds data not marked for tests", returncode=2)
    await r.flushdb()
    await r.set(TEST_MARK, 1)
    try:
        yield r
    finally:
        await r.aclose()


class Person:
    """One browser context: a person (or a spectator) with the table open."""

    def __init__(self, page: Any, user_id: str | None) -> None:
        self.page = page
        self.user_id = user_id
        self.frames: list[str] = []
        self.checked = 0
        page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: self.frames.append(frame)))

    async def synced(self, version: int) -> None:
        await self.page.wait_for_function(
            "v => Number(document.body.dataset.version ?? -1) >= v", arg=version, timeout=WAIT_MS
        )

    def leaks(self, seen: Seen) -> list[str]:
        """The frames received so far that name a card hidden from this person when the
        frame was made: a state frame against the room at its own version (the browser
        reports frames a little after the page draws them), another against the last two."""
        out = []
        for f in self.frames:
            hidden = seen.hidden(self.user_id, _version(f))
            if c := leaked(f, hidden):
                out.append(f"{self.user_id}: {sorted(c)} in {f}")
        self.checked += len(self.frames)
        self.frames.clear()
        return out


def _version(frame: str) -> int | None:
    try:
        data = json.loads(frame)
    except ValueError:
        return None
    return data.get("v") if isinstance(data, dict) and data.get("type") == "state" else None


class Seen:
    """What each person could not see at each version of the room the test saw."""

    def __init__(self) -> None:
        self.at: dict[int, dict[str | None, set[str]]] = {}

    def record(self, room: Room, users: list[str | None]) -> None:
        self.at[room.version] = {u: hidden_from(room, u) for u in users}

    def hidden(self, user: str | None, version: int | None) -> set[str]:
        versions = sorted(self.at)
        if version in self.at:
            return self.at[version][user]
        # a version between two the test saw (several commits in one step), or a frame of
        # no version: hidden in both
        before = [v for v in versions if version is None or v < version][-2 if version is None else -1 :]
        after = [v for v in versions if version is not None and v > version][:1]
        around = (before + after) or versions[-1:]
        return set.intersection(*(self.at[v][user] for v in around))


async def open_page(
    browser: Any,
    port: int,
    init: str,
    start: str | None,
    user_id: str | None,
    viewport: dict[str, int] = PHONE,
) -> Person:
    context = await browser.new_context(viewport=viewport, locale="ru-RU")
    await context.add_init_script(TELEGRAM % (json.dumps(init), json.dumps(start)))
    page = await context.new_page()
    person = Person(page, user_id)
    await page.goto(f"http://127.0.0.1:{port}/")
    return person


def web_link(env: Env) -> str:
    rows = env.table_message().buttons
    url = next(str(b["url"]) for row in rows for b in row if "url" in b)
    return parse_qs(urlsplit(url).query)["startapp"][0]


async def tap(person: Person, choice: Choice) -> None:
    """A move as a person makes it: its cards tapped (a corner: the fan overlaps them),
    then the button that says what it does."""
    page = person.page
    if choice.mask and choice.kind != "declare":
        for card in choice.cards:
            await page.click(f'#hand .card[data-card="{card}"]', position={"x": 9, "y": 30}, timeout=WAIT_MS)
    await page.click(f'#actions button[data-token="{choice.token}"]', timeout=WAIT_MS)


def pick(choices: list[Choice], rng: random.Random) -> Choice:
    moves = [c for c in choices if c.kind != "declare"] or choices
    return rng.choice(moves)


async def shows_the_last_trick(person: Person, winner: int, room: Room) -> bool:
    """A tap on the trick shows the last trick taken, with its taker's name."""
    page = person.page
    felt = await page.locator("#felt").bounding_box()
    assert felt is not None
    await page.mouse.click(felt["x"] + felt["width"] / 2, felt["y"] + felt["height"] * 0.47)
    head = page.locator("#overlay:not([hidden]) #panel h3")
    await head.wait_for(timeout=WAIT_MS)
    seat = room.seats[winner]
    assert seat is not None and seat.name in (await head.text_content() or "")
    assert await page.locator("#overlay #panel .card").count() >= 2
    await page.click("#panel .btn.close", timeout=WAIT_MS)
    await page.locator("#overlay").wait_for(state="hidden", timeout=WAIT_MS)
    return True


async def says_why_not(person: Person, hand: HandView) -> bool:
    """The cards that may be played are raised, the others dimmed; a tap on a dimmed one
    says why, in the table's words, and plays nothing."""
    page = person.page
    card, code = next(iter(hand.why_not.items()))
    dimmed = page.locator(f'#hand .card.dim[data-card="{card}"]')
    await dimmed.wait_for(timeout=WAIT_MS)
    legal = {c for choice in hand.choices for c in choice.cards}
    for c in legal:
        assert await page.locator(f'#hand .card.legal[data-card="{c}"]').count() == 1, c
    await dimmed.click(position={"x": 9, "y": 30}, timeout=WAIT_MS)
    toast = page.locator("#toast:not([hidden])")
    await toast.wait_for(timeout=WAIT_MS)
    assert (await toast.text_content() or "") == Text("ru").reason(code)
    assert await page.locator("#hand .card.selected").count() == 0
    return True


async def check_layout(person: Person, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for size, label in ((PHONE, "390x844"), (DESKTOP, "1280x800")):
        await person.page.set_viewport_size(size)
        await person.page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 450)))")
        await person.page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"))
        bad = await person.page.evaluate(LAYOUT)
        assert not bad, f"{name} at {label}: " + "\n".join(bad[:12])
    await person.page.set_viewport_size(PHONE)


async def play_a_deal(
    rds: Redis, redis_url: str, browser: Any, preset: str, restart: bool, shots: str
) -> None:
    async with telegram(rds, webapp_name="table", webapp_url="https://kozel.example.org/web") as env:
        await open_table(env, people=2, bots=2, game=preset)
        link = web_link(env)
        # who may watch: the group's members, asked of the fake Bot API (getChatMember)
        web = WebTable(env.service, env.service.chats, member=env.painter.members.is_member)
        port = await web.start("127.0.0.1", 0)
        token = env.settings.bot_token or ""
        now = int(time.time())
        anna, boris = env.users[0], env.users[1]
        vera = env.fake.add_user(1010, "Vera", language_code="ru")
        env.fake.set_member(env.group, vera, "member")
        people = {
            f"tg:{u.id}": await open_page(
                browser,
                port,
                sign_init_data(token, u.id, u.first_name, now, start_param=link),
                link,
                f"tg:{u.id}",
            )
            for u in (anna, boris)
        }
        spectator = await open_page(
            browser, port, sign_init_data(token, vera.id, "Vera", now, start_param=link), link, None
        )
        pages = [*people.values(), spectator]
        rng = random.Random(preset)
        leaks: list[str] = []
        seen = Seen()
        watchers: list[str | None] = [*people, None]
        room = await env.room()
        seen.record(room, watchers)
        steps = shot = 0
        last_seen = why_seen = False
        services: list[GameService] = []
        try:
            for p in pages:
                await p.synced(room.version)
            while room.state == "playing" and room.load_match().deal_no == 1:
                steps += 1
                assert steps < 400, "the deal did not end"
                mover = next(
                    (
                        uid
                        for uid in people
                        if (h := env.service.hand_of(room, uid)) is not None and h.on_move and h.choices
                    ),
                    None,
                )
                if mover is not None:
                    hand = env.service.hand_of(room, mover)
                    assert hand is not None
                    await tap(people[mover], pick(hand.choices, rng))
                    await people[mover].synced(room.version + 1)
                else:
                    await env.tick()
                room = await env.room()
                seen.record(room, watchers)
                for p in pages:
                    await p.synced(room.version)
                    leaks += p.leaks(seen)
                table = env.service.table_of(room)
                if not last_seen and table.last_trick is not None:
                    last_seen = await shows_the_last_trick(spectator, table.last_trick[0], room)
                why = env.service.hand_of(room, f"tg:{anna.id}")
                if not why_seen and why is not None and why.on_move and why.why_not:
                    why_seen = await says_why_not(people[f"tg:{anna.id}"], why)
                if not shot and len(table.trick) >= 2:
                    shot = 1
                    await check_layout(people[f"tg:{anna.id}"], f"{shots}-player")
                    await check_layout(spectator, f"{shots}-spectator")
                if restart and steps == 12:
                    # the worker restarts: a new service and server on the same Redis and port
                    await web.close()
                    fresh = GameService(Store(Redis.from_url(redis_url)), env.settings, env.clock)
                    services.append(fresh)
                    web = WebTable(fresh, fresh.chats, member=env.painter.members.is_member)
                    await web.start("127.0.0.1", port)
                    for p in pages:
                        await p.page.wait_for_function(
                            "() => Number(document.body.dataset.connects) >= 2 && "
                            "document.body.dataset.conn === 'open'",
                            timeout=WAIT_MS,
                        )
                        await p.synced(room.version)
            assert room.state != "playing" or room.load_match().deal_no == 2, "the first deal is over"
            assert shot, "no trick with two plays was seen"
            assert last_seen, "the last trick was never looked at"
            # Petukh's single cards say why not (Kozel's multi-card answers have no one reason)
            assert why_seen or preset != "petukh", "no card was refused with its reason"
            assert not leaks, "\n".join(leaks[:10])
            assert all(p.checked > 10 for p in pages)
            for p in people.values():
                assert not await p.page.evaluate("() => document.body.dataset.refusals || ''")
                assert await p.page.evaluate("() => window.__haptics.length") > 0
            assert await spectator.page.locator("#hand .card").count() == 0
            # the deal's result was shown on every page, over the table without stopping play
            for p in pages:
                await p.page.wait_for_function(
                    "() => document.body.dataset.result === 'deal'", timeout=WAIT_MS
                )
                shown = await p.page.locator("#panel .result").text_content()
                assert shown and "1" in shown
        finally:
            for p in pages:
                await p.page.context.close()
            await web.close()
            for s in services:
                await s.store.close()


async def test_two_people_play_a_deal_of_kozel_and_the_worker_restarts(
    rds: Redis, redis_url: str, browser: Any
) -> None:
    await play_a_deal(rds, redis_url, browser, "kozel", restart=True, shots="kozel")


async def test_two_people_play_a_deal_of_petukh(rds: Redis, redis_url: str, browser: Any) -> None:
    await play_a_deal(rds, redis_url, browser, "petukh", restart=False, shots="petukh")


async def test_a_forged_and_an_expired_init_data_and_a_stranger_are_refused_on_the_page(
    rds: Redis, browser: Any
) -> None:
    async with telegram(rds, webapp_name="table", webapp_url="https://kozel.example.org/web") as env:
        await open_table(env, people=2, bots=2)
        link = web_link(env)
        web = WebTable(env.service, env.service.chats, member=env.painter.members.is_member)
        port = await web.start("127.0.0.1", 0)
        anna = env.users[0]
        stranger = env.fake.add_user(2020, "Mallory")  # holds the link, is not in the group
        try:
            for init in (
                sign_init_data("999:not-our-bot", anna.id, "Anna", int(time.time()), start_param=link),
                sign_init_data(
                    env.settings.bot_token or "", anna.id, "Anna", int(time.time()) - 3 * 86400, link
                ),
                sign_init_data(env.settings.bot_token or "", stranger.id, "Mallory", int(time.time()), link),
            ):
                person = await open_page(browser, port, init, link, None)
                page = person.page
                await page.wait_for_function(
                    "() => document.body.dataset.conn === 'refused'", timeout=WAIT_MS
                )
                assert await page.locator("#banner").is_visible()
                assert (await page.locator("#banner").text_content() or "").strip()
                assert await page.locator("#hand .card").count() == 0
                assert not any('"state"' in f for f in person.frames)
                await page.context.close()
        finally:
            await web.close()


async def test_r33_a_request_to_end_is_agreed_with_a_tap(rds: Redis, browser: Any) -> None:
    """Issue 33.7: once a deal was played, Anna's /cancel asks Boris; his page shows the
    request and "Agree to end"; his tap ends the match, and both pages show it over."""
    async with telegram(rds, webapp_name="table", webapp_url="https://kozel.example.org/web") as env:
        await open_table(env, people=2, bots=2)
        link = web_link(env)
        anna, boris = env.users[0], env.users[1]
        people = [User(f"tg:{u.id}", u.first_name) for u in (anna, boris)]
        room = await env.room()
        await past_the_first_deal(env.service, env.clock, room.id, people)
        assert (await env.service.cancel(room.id, people[0])).ok
        web = WebTable(env.service, env.service.chats, member=env.painter.members.is_member)
        port = await web.start("127.0.0.1", 0)
        token = env.settings.bot_token or ""
        now = int(time.time())
        pages = [
            await open_page(
                browser, port, sign_init_data(token, u.id, u.first_name, now, link), link, f"tg:{u.id}"
            )
            for u in (anna, boris)
        ]
        try:
            for p in pages:
                await p.synced((await env.room()).version)
            assert await pages[0].page.locator('#actions button[data-kind="agree"]').count() == 0
            assert await pages[0].page.locator('#actions button[data-kind="give_up"]').count() == 1
            assert "Anna" in (await pages[1].page.locator("#lines").text_content() or "")
            await check_layout(pages[1], "vote")  # the two buttons fit beside the hand
            await pages[1].page.click('#actions button[data-kind="agree"]', timeout=WAIT_MS)
            ended = await env.room()
            assert ended.state == "finished" and ended.result == {"cancelled": True}
            for p in pages:
                await p.synced(ended.version)
                assert await p.page.locator('#actions button[data-kind="give_up"]').count() == 0
        finally:
            for p in pages:
                await p.page.context.close()
            await web.close()
