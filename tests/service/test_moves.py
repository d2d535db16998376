"""Moves exactly once, and every wrong button refused with a reason and no write."""

from __future__ import annotations

import random
from itertools import combinations

from redis.asyncio import Redis

from bot.room import User
from bot.service import GameService
from bot.tokens import MAX_TOKEN, hand_fingerprint, parse_token
from engine.cards import ALL_CARDS, CARD_TEXT, RANK_NAMES, SUIT_LETTERS, SUIT_SYMBOLS
from tests.pieces import pieces

from .conftest import PEOPLE, actor, people_room, pick, room_bytes

ANNA, BORIS, VERA, GLEB, DASHA = PEOPLE
FOUR = [ANNA, BORIS, VERA, GLEB]


def spellings(card: int) -> list[str]:
    rank, suit = RANK_NAMES[card % 9], card // 9
    out = []
    for r in {rank, rank.lower()}:
        for s in (SUIT_LETTERS[suit], SUIT_SYMBOLS[suit], SUIT_SYMBOLS[suit] + "\ufe0f"):
            out.append(r + s)
    return out


async def test_same_update_twice_applies_once(svc: GameService, redis: Redis) -> None:
    rid = await people_room(svc, FOUR, seed=2)
    room = await svc.room(rid)
    assert room is not None
    u, hv = actor(svc, room, FOUR)
    tok = pick(hv).token
    first = await svc.act(tok, u, update_id="upd-1")
    assert first.ok and first.room is not None
    stored = await room_bytes(redis, rid)
    again = await svc.act(tok, u, update_id="upd-1")  # a redelivery: quiet success
    assert again.ok and again.repeat and again.reason is None and not again.lines
    assert await room_bytes(redis, rid) == stored
    # an update with that id is the same update, whoever it names: ids are per room
    u2, hv2 = actor(svc, first.room, FOUR)
    assert (await svc.act(pick(hv2).token, u2, update_id="upd-1")).repeat
    assert await room_bytes(redis, rid) == stored
    assert (await svc.act(pick(hv2).token, u2, update_id="upd-2")).ok


async def test_same_token_twice_with_new_update_ids_applies_once(svc: GameService, redis: Redis) -> None:
    rid = await people_room(svc, FOUR, seed=3)
    room = await svc.room(rid)
    assert room is not None
    for step in range(12):
        u, hv = actor(svc, room, FOUR)
        tok = pick(hv, random.Random(step)).token
        out = await svc.act(tok, u, update_id=f"a{step}")
        assert out.ok and out.room is not None
        stored = await room_bytes(redis, rid)
        again = await svc.act(tok, u, update_id=f"b{step}")  # a double tap: quiet
        assert again.ok and again.repeat, again.reason
        assert await room_bytes(redis, rid) == stored
        room = out.room
    assert sum(s.count(",") for s in room.log) == 12


async def test_tokens_are_short_and_name_no_card(svc: GameService) -> None:
    for preset, seed in (("kozel", 5), ("kozel-4", 0), ("kozel-60", 1)):
        rid = await people_room(svc, FOUR, chat=f"-{seed}{len(preset)}", seed=seed, preset=preset)
        rng = random.Random(seed)
        checked = 0
        for _ in range(60):
            room = await svc.room(rid)
            assert room is not None
            if room.match is None or room.state != "playing":
                break
            match = room.load_match()
            for u in FOUR:
                hv = svc.hand_of(room, u.id)
                assert hv is not None
                seat = room.seat_of(u.id)
                assert seat is not None
                hand = match.deal.hands[seat]
                assert sorted(hv.cards) == sorted(CARD_TEXT[c] for c in hand)
                for ch in hv.choices:
                    assert len(ch.token.encode()) <= MAX_TOKEN
                    parts = ch.token.replace("|", ".").split(".")
                    for card in hand:
                        for text in spellings(card):
                            if text.isupper() or not text.isascii():
                                assert text not in ch.token, (ch.token, text)
                            assert text not in parts
                    checked += 1
            u, hv = actor(svc, room, FOUR)
            assert (await svc.act(pick(hv, rng, declare=True).token, u)).ok
        assert checked > 50


async def test_the_hand_fingerprint_cannot_be_inverted_from_public_data(
    svc: GameService,
) -> None:
    """A token shows its room, generation and seat: from those alone, trying every possible
    hand must not single out the hand the button was made for."""
    rid = await people_room(svc, FOUR, seed=8)
    room = await svc.room(rid)
    assert room is not None
    u, hv = actor(svc, room, FOUR)
    tok = parse_token(pick(hv).token)
    seat = room.seat_of(u.id)
    assert seat is not None
    hand = tuple(sorted(room.load_match().deal.hands[seat]))
    assert len(hand) == 4
    fitting = [
        h for h in combinations(ALL_CARDS, 4) if hand_fingerprint(tok.room, tok.gen, seat, h) == tok.hand
    ]
    assert hand not in fitting


async def test_wrong_buttons_are_refused_without_a_write(svc: GameService, redis: Redis) -> None:
    rid = await people_room(svc, FOUR, seed=6)
    other = await people_room(svc, [DASHA, User("tg:6", "Egor")], chat="-200", seed=1)
    room = await svc.room(rid)
    oroom = await svc.room(other)
    assert room is not None and oroom is not None
    u, hv = actor(svc, room, FOUR)
    good = pick(hv).token
    ou, ohv = actor(svc, oroom, [DASHA, User("tg:6", "Egor")])
    foreign = pick(ohv).token
    seat = room.seat_of(u.id)
    assert seat is not None
    neighbour = next(p for p in FOUR if p != u)
    t = parse_token(good)
    prefix = f"{t.room}|{t.gen}.{t.deal}.{t.trick}"
    kind = good.rsplit(".", 1)[1][0]
    cases: list[tuple[str, User, str | None, set[str]]] = [
        ("", u, None, {"bad_token"}),
        ("garbage", u, None, {"bad_token"}),
        (good + "x" * 60, u, None, {"bad_token"}),
        (good.replace("|", "||"), u, None, {"bad_token"}),
        (f"{prefix}.{t.hand}.z1", u, None, {"bad_token"}),  # unknown kind
        (f"{prefix}.{t.hand}.{kind}zzzz", u, None, {"bad_token"}),  # huge mask
        (f"{prefix}.{t.hand}.{kind}0", u, None, {"bad_token"}),  # no cards
        (f"{prefix}.{t.hand}.{kind}-1", u, None, {"bad_token"}),
        (f"{prefix}.{t.hand}.{kind}800", u, None, {"bad_token"}),  # positions past the hand
        (f"{prefix}.zzzz.{kind}{t.mask:x}", u, None, {"stale"}),  # another hand
        (f"{t.room}|{t.gen}.{t.deal + 1}.{t.trick}.{t.hand}.{kind}{t.mask}", u, None, {"stale"}),
        (f"{t.room}|{t.gen}.{t.deal}.{t.trick + 3}.{t.hand}.{kind}{t.mask}", u, None, {"stale"}),
        (f"{prefix}.-.d", u, None, {"declaration_closed"}),
        (f"{prefix}.{t.hand}.d", u, None, {"bad_token"}),
        (good.replace(t.room, "tg:-999", 1), u, None, {"no_room"}),
        (good.replace(t.room, "tg:{x}", 1), u, None, {"bad_token"}),
        (good.replace(t.room, "nocolon", 1), u, None, {"bad_token"}),
        (good.replace(f"|{t.gen}.", f"|{t.gen + 1}.", 1), u, None, {"stale"}),
        (good, User("tg:77", "Nobody"), None, {"not_your_seat"}),
        (good, neighbour, None, {"stale", "not_your_turn"}),
        (good, u, other, {"foreign_token"}),
        (foreign, u, rid, {"foreign_token"}),
        (foreign, u, None, {"not_your_seat"}),
    ]
    for token, who, where, reasons in cases:
        before = await room_bytes(redis, rid)
        obefore = await room_bytes(redis, other)
        out = await svc.act(token, who, update_id=f"x{len(token)}{who.id}", room_id=where)
        assert not out.ok, (token, who)
        assert out.reason in reasons, (token, out.reason, reasons)
        assert await room_bytes(redis, rid) == before, token
        assert await room_bytes(redis, other) == obefore, token
    # refused updates are not claimed: the good button still works with any of those ids
    assert (await svc.act(good, u, update_id="x0tg:1")).ok


async def test_a_token_of_an_earlier_match_is_stale(svc: GameService, redis: Redis) -> None:
    rid = await people_room(svc, FOUR, seed=7)
    room = await svc.room(rid)
    assert room is not None
    u, hv = actor(svc, room, FOUR)
    old = pick(hv).token
    assert (await svc.cancel(rid, ANNA)).ok
    stored = await room_bytes(redis, rid)
    assert (await svc.act(old, u)).reason == "game_over"
    assert await room_bytes(redis, rid) == stored
    # the next match in the same chat, dealt the same way (same seed): same hand, same moment
    rid2 = await people_room(svc, FOUR, seed=7)
    assert rid2 == rid
    room = await svc.room(rid)
    assert room is not None and room.gen == 2
    u2, hv2 = actor(svc, room, FOUR)
    assert u2 == u and [c.cards for c in hv2.choices] == [c.cards for c in hv.choices]
    stored = await room_bytes(redis, rid)
    out = await svc.act(old, u, update_id="old")
    assert out.reason == "stale"
    assert await room_bytes(redis, rid) == stored
    assert (await svc.act(pick(hv2).token, u, update_id="old")).ok


async def test_a_finished_game_refuses_every_button(svc: GameService, redis: Redis) -> None:
    two = [ANNA, BORIS]
    rid = await people_room(svc, two, seed=11, preset="kozel-60")
    tokens: list[tuple[User, str]] = []
    for _ in range(2000):
        room = await svc.room(rid)
        assert room is not None
        if room.state != "playing":
            break
        u, hv = actor(svc, room, two)
        tokens.append((u, pick(hv).token))
        assert (await svc.act(tokens[-1][1], u)).ok
    room = await svc.room(rid)
    assert room is not None and room.state == "finished"
    stored = await room_bytes(redis, rid)
    last = {u.id: tok for u, tok in tokens}  # each person's own last move
    for u, tok in tokens[-5:]:
        out = await svc.act(tok, u)
        if last[u.id] == tok:
            assert out.ok and out.repeat  # his own last move, pressed again
        else:
            assert out.reason == "game_over"
    assert await room_bytes(redis, rid) == stored
    assert svc.hand_of(room, ANNA.id) is not None
    hv = svc.hand_of(room, ANNA.id)
    assert hv is not None and hv.prompt == "over" and hv.choices == []


async def test_platform_data_write_leaves_tokens_valid(svc: GameService) -> None:
    rid = await people_room(svc, FOUR, seed=9)
    room = await svc.room(rid)
    assert room is not None
    u, hv = actor(svc, room, FOUR)
    assert (await pieces(svc).platform.data.set_room_data(rid, msg=1)).ok
    assert (await pieces(svc).platform.data.set_seat_data(rid, u.id, dm=2)).ok
    out = await svc.act(pick(hv).token, u)
    assert out.ok, out.reason


async def test_an_open_declaration_stays_valid_while_others_act(svc: GameService) -> None:
    """kozel-4: the pull is open to a seat while the others play the trick; the button made
    before their moves still works after them."""
    for seed in range(6):
        rid = await people_room(svc, FOUR, chat=f"-{seed + 1}", seed=seed, preset="kozel-4")
        for _ in range(200):
            room = await svc.room(rid)
            assert room is not None
            if room.state != "playing":
                break
            mover, mhv = actor(svc, room, FOUR)
            held = [
                (p, c)
                for p in FOUR
                if p != mover
                for hv in [svc.hand_of(room, p.id)]
                if hv
                for c in hv.choices
                if c.kind == "declare"
            ]
            out = await svc.act(pick(mhv).token, mover)
            assert out.ok and out.room is not None
            if not held:
                continue
            who, choice = held[0]
            after = svc.hand_of(out.room, who.id)
            assert after is not None
            if any(c.kind == "declare" for c in after.choices):
                # someone else moved, yet the button made before stays good
                done = await svc.act(choice.token, who)
                assert done.ok, done.reason
                assert any(ln.key == "declared" for ln in done.lines)
                return
    raise AssertionError("no open declaration that outlived another's move was found")
