"""Helpers for the service tests: settings, a manual clock, services on the real Redis."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from redis.asyncio import Redis

from bot import keys
from bot.clock import ManualClock
from bot.config import Settings
from bot.room import Room, User
from bot.service import GameService
from bot.store import Store
from bot.views import Choice, HandView

TURN = 60.0
DELAY = 1.0
IDLE = 3600


def make_settings(**over: Any) -> Settings:
    base: dict[str, Any] = {
        "turn_seconds": TURN,
        "bot_delay_seconds": DELAY,
        "missed_turns_to_bot": 2,
        "idle_seconds": IDLE,
        "update_ttl_seconds": 24 * 3600,
        "default_language": "en",
        "redis_url": None,
    }
    base.update(over)
    return Settings(**base)


@pytest.fixture
def settings() -> Settings:
    return make_settings()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def svc(store: Store, settings: Settings, clock: ManualClock) -> GameService:
    return GameService(store, settings, clock)


@pytest.fixture
async def new_service(
    redis_url: str, redis: Redis, settings: Settings, clock: ManualClock
) -> AsyncIterator[Callable[..., GameService]]:
    """Another worker: its own Redis connection (pool) to the same database."""
    made: list[Store] = []

    def factory(**over: Any) -> GameService:
        store = Store(Redis.from_url(redis_url))
        made.append(store)
        return GameService(store, make_settings(**over) if over else settings, clock)

    yield factory
    for st in made:
        with contextlib.suppress(Exception):  # some tests close their worker themselves
            await st.close()


PEOPLE = [
    User("tg:1", "Anna"),
    User("tg:2", "Boris"),
    User("tg:3", "Vera"),
    User("tg:4", "Gleb"),
    User("tg:5", "Dasha"),
]


async def people_room(
    svc: GameService,
    people: list[User],
    chat: str = "-100",
    seed: int = 1,
    preset: str = "kozel",
    thread: str | None = None,
    options: dict[str, Any] | None = None,
) -> str:
    """A started room with these people seated in order."""
    out = await svc.create("tg", chat, thread, people[0], preset, options, size=len(people))
    assert out.ok, out
    rid = out.room.id  # type: ignore[union-attr]
    for u in people[1:]:
        j = await svc.join(rid, u)
        assert j.ok, j
    st = await svc.start(rid, people[0], seed=seed)
    assert st.ok, st
    return rid


def actor(svc: GameService, room: Room, people: list[User]) -> tuple[User, HandView]:
    """The person on move and his hand view."""
    for u in people:
        hv = svc.hand_of(room, u.id)
        if hv is not None and hv.on_move:
            return u, hv
    raise AssertionError("nobody on move")


def pick(hv: HandView, rng: random.Random | None = None, declare: bool = False) -> Choice:
    cs = [c for c in hv.choices if declare or c.kind != "declare"] or hv.choices
    return rng.choice(cs) if rng else cs[0]


async def snapshot(redis: Redis) -> dict[bytes, Any]:
    """Every key's value (DUMP) and expiry flag: to prove that nothing changed."""
    out: dict[bytes, Any] = {}
    async for k in redis.scan_iter(count=1000):
        out[k] = (await redis.dump(k), await redis.ttl(k) > 0)
    return out


async def room_bytes(redis: Redis, room_id: str) -> tuple[Any, Any]:
    return tuple(await redis.hmget(keys.room(room_id), ["v", "doc"]))  # type: ignore[return-value]
