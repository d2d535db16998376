"""10,000 forged, mutated, misplaced buttons: every one refused with a reason code, nothing
written to Redis, no exception out of the service."""

from __future__ import annotations

import asyncio
import random
import string

import pytest
from redis.asyncio import Redis

from bot.room import Room, User
from bot.service import GameService, Outcome
from bot.tokens import Token, TokenError, parse_token
from engine.actions import Action

from .conftest import PEOPLE, actor, people_room, pick, snapshot

N = 10_000
FOUR = PEOPLE[:4]
WEIRD = "²³¹٣۵߂०১௫๓༣၂៣᠓᥆𝟘𝟙①⑴Ⅻ½\u00a0\u2007\u200b\ufeff\ufe0f🂡♥♠♦♣{}[]*?|.:/\\\"'%\x00\n\t-+_ "
ALPHABET = string.ascii_letters + string.digits + "|.:-_ " + WEIRD


def parsed(text: str) -> Token | None:
    try:
        return parse_token(text)
    except (TokenError, ValueError):
        return None


def mutate(rng: random.Random, token: str) -> str:
    how = rng.randrange(9)
    if how == 0:  # truncation
        return token[: rng.randrange(len(token))]
    if how == 1:  # bit flip in the bytes
        b = bytearray(token.encode())
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
        return b.decode("utf-8", errors="replace")
    if how == 2:  # one character replaced
        i = rng.randrange(len(token))
        return token[:i] + rng.choice(ALPHABET) + token[i + 1 :]
    if how == 3:  # one character inserted / deleted
        i = rng.randrange(len(token))
        if rng.random() < 0.5:
            return token[:i] + rng.choice(ALPHABET) + token[i:]
        return token[:i] + token[i + 1 :]
    if how == 4:  # a huge or odd mask
        head = token.rsplit(".", 1)[0]
        mask = rng.choice(
            [
                "zzzzzzzzzzzz",
                "0",
                "-1",
                "1" * 30,
                str(1 << 12),
                "+3",
                "3_0",
                " 7",
                "ff" * 10,
                "²",
                "𝟙",
                "1e5",
                "0x1f",
            ]
        )
        return f"{head}.{rng.choice('lbtpdx')}{mask}"
    if how == 5:  # another room
        room, rest = token.split("|", 1)
        other = rng.choice(
            [
                "tg:-999",
                "tg:",
                ":",
                "tg:-100/1",
                "x" * 60,
                "tg:{-100}",
                "dc:1",
                "tg:-100 ",
                "TG:-100",
                "tg:-100\x00",
                "tg:-1",
                "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 20))),
            ]
        )
        return f"{other}|{rest}"
    if how == 6:  # numbers changed: generation, deal, trick
        room, rest = token.split("|", 1)
        parts = rest.split(".")
        i = rng.randrange(3)
        parts[i] = rng.choice(
            [str(int(parts[i]) + rng.choice([-1, 1, 2, 10**6])), "²", "٣", "01", "", "-0", "9" * 40]
        )
        return room + "|" + ".".join(parts)
    if how == 7:  # longer than allowed
        return token + rng.choice(["", ".", "0"]) * rng.randrange(40, 80)
    parts = token.split(".")  # the hand fingerprint changed
    parts[3] = rng.choice(["-", "", "zzzzz", "0", parts[3][::-1], parts[3] + "a"])
    return ".".join(parts)


def random_text(rng: random.Random) -> str:
    n = rng.choice([0, 1, 5, 20, 40, 64, 65, 100, 300])
    text = "".join(rng.choice(ALPHABET) for _ in range(n))
    if rng.random() < 0.3 and n:
        text = "tg:-100|" + text  # the right room and garbage behind it
    return text


async def test_ten_thousand_forgeries(svc: GameService, redis: Redis) -> None:
    rid = await people_room(svc, FOUR, seed=12)
    other_people = [PEOPLE[4], User("tg:6", "Egor")]
    other = await people_room(svc, other_people, chat="-200", seed=3)
    rng = random.Random(2024)
    history: list[tuple[User, str]] = []
    room: Room | None = None
    for _ in range(9):  # a few moves in, keeping the buttons pressed on the way
        room = await svc.room(rid)
        assert room is not None
        for u in FOUR:
            hv = svc.hand_of(room, u.id)
            assert hv is not None
            history.extend((u, c.token) for c in hv.choices)
        u, hv = actor(svc, room, FOUR)
        assert (await svc.act(pick(hv, rng).token, u)).ok
    room = await svc.room(rid)
    oroom = await svc.room(other)
    assert room is not None and oroom is not None
    legal: dict[tuple[str, str], set[Token]] = {}
    current: list[tuple[User, str]] = []
    for r, people in ((room, FOUR), (oroom, other_people)):
        for u in people:
            hv = svc.hand_of(r, u.id)
            assert hv is not None
            legal[r.id, u.id] = {parse_token(c.token) for c in hv.choices}
            current.extend((u, c.token) for c in hv.choices)
    assert current
    real = current + history
    strangers = [
        User("tg:99", "X"),
        User("", ""),
        User("tg:1 ", "Anna"),
        User("TG:1", "A"),
        User("x" * 500, "long"),
        User("tg:5", "Dasha"),
        User("tg:\x00", "nul"),
    ]

    def candidate() -> tuple[str, User, str | None]:
        kind = rng.random()
        if kind < 0.2:
            token = random_text(rng)
        elif kind < 0.85:
            token = mutate(rng, rng.choice(real)[1])
        else:
            token = rng.choice(real)[1]  # a real button, but see who presses it where
        r = rng.random()
        if r < 0.5:
            who = rng.choice(FOUR)
        elif r < 0.8:
            who = rng.choice(strangers)
        else:
            who = User("".join(rng.choice(ALPHABET) for _ in range(rng.randrange(12))), "?")
        where = rng.choice([None, None, rid, other, "tg:-404", "", "tg:-100/9"])
        return token, who, where

    def would_be_legal(token: str, who: User, where: str | None) -> bool:
        """A respelling of a move its presser may make now is no forgery: leave it out."""
        t = parsed(token)
        if t is None or where not in (None, t.room):
            return False
        return t in legal.get((t.room, who.id), set())

    cases: list[tuple[str, User, str | None, str]] = []
    while len(cases) < N:
        token, who, where = candidate()
        if would_be_legal(token, who, where):
            continue
        upd = rng.choice([None, f"u{len(cases)}", "", "∞" * 30, "upd:{x}*"])
        cases.append((token, who, where, upd))  # type: ignore[arg-type]
    assert sum(len(t.encode()) > 64 for t, *_ in cases) > 200
    assert sum(1 for t, *_ in cases if parsed(t) is not None) > 2000

    before = await snapshot(redis)
    reasons: dict[str, int] = {}
    batch = 200
    for i in range(0, N, batch):
        chunk = cases[i : i + batch]
        results = await asyncio.gather(
            *(svc.act(t, w, update_id=upd, room_id=where) for t, w, where, upd in chunk),
            return_exceptions=True,
        )
        for (t, w, where, _u), res in zip(chunk, results, strict=True):
            assert isinstance(res, Outcome), (t, w, where, res)
            if res.repeat:  # a person's own last move again: quiet, and changes nothing
                continue
            assert not res.ok, (t, w, where)
            assert isinstance(res.reason, str) and res.reason, (t, w, where)
            reasons[res.reason] = reasons.get(res.reason, 0) + 1
    after = await snapshot(redis)
    assert after == before
    # the service refused for many different reasons, not one catch-all
    for code in ("bad_token", "stale", "no_room", "not_your_seat", "foreign_token"):
        assert reasons.get(code, 0) > 50, reasons
    # and the room still plays on with its real buttons
    u, hv = actor(svc, room, FOUR)
    assert (await svc.act(pick(hv).token, u)).ok


KIND_LETTERS = "lbtpdyvesrakqfnc"  # every kind a token may name (bot/tokens.py)


def mutate_kind(rng: random.Random, token: str) -> str:
    """Another kind letter with the same, no, or a random mask (a cut's number, a pass...)."""
    head, _, act = token.rpartition(".")
    parts = head.split(".")
    if rng.random() < 0.5:
        parts[-1] = rng.choice(["-", parts[-1], "zz"])
    mask = rng.choice(["", act[1:], "1", "3", "z", "10", "0", "zzz"])
    return ".".join(parts) + "." + rng.choice(KIND_LETTERS) + mask


@pytest.mark.parametrize("preset", ["kozel-nn", "petukh"])
async def test_forged_moves_of_the_new_games(svc: GameService, redis: Redis, preset: str) -> None:
    """Cuts, redeal requests, passes, exchanges, swaps and covers: a forged or misplaced
    button is refused with a reason and changes nothing."""
    rid = await people_room(svc, FOUR, preset=preset, seed=21)
    rng = random.Random(preset)
    history: list[str] = []
    for _ in range(4):
        room = await svc.room(rid)
        assert room is not None
        for u in FOUR:
            hv = svc.hand_of(room, u.id)
            assert hv is not None
            history.extend(c.token for c in hv.choices)
        u, hv = actor(svc, room, FOUR)
        assert (await svc.act(rng.choice(hv.choices).token, u)).ok
    room = await svc.room(rid)
    assert room is not None
    match = room.load_match()
    legal: dict[str, set[Token]] = {}
    for u in FOUR:
        hv = svc.hand_of(room, u.id)
        assert hv is not None
        legal[u.id] = {parse_token(c.token) for c in hv.choices}
        history.extend(c.token for c in hv.choices)

    def would_be_legal(token: str, who: User) -> bool:
        t = parsed(token)
        if t is None or t.room != rid or who.id not in legal:
            return False
        if t in legal[who.id]:
            return True
        seat = room.seat_of(who.id)
        # the views offer a few cuts; every cut the engine allows is a real move
        return (
            t.kind == "cut"
            and seat is not None
            and t.gen == room.gen
            and Action("cut", (t.mask,)) in match.legal_actions(seat)
        )

    cases: list[tuple[str, User]] = []
    while len(cases) < 1500:
        base = rng.choice(history)
        token = mutate_kind(rng, base) if rng.random() < 0.6 else mutate(rng, base)
        who = rng.choice([*FOUR, User("tg:99", "X")])
        if not would_be_legal(token, who):
            cases.append((token, who))
    before = await snapshot(redis)
    reasons: dict[str, int] = {}
    for token, who in cases:
        out = await svc.act(token, who)
        if out.repeat:  # a person's own last move again: quiet, and changes nothing
            continue
        assert isinstance(out, Outcome) and not out.ok, (token, who)
        assert out.reason, token
        reasons[out.reason] = reasons.get(out.reason, 0) + 1
    assert await snapshot(redis) == before
    assert reasons.get("bad_token", 0) > 50 and reasons.get("stale", 0) > 50, reasons
