"""The service with the permanent-trump Kozel and Petukh families (RULES.md 4, 5): whole
matches through the same buttons people press (cuts, redeal requests, boasts, exchanges,
passes, swaps), hidden cards kept out of the group's view, the room's size in Redis, and
Petukh's waiting queue (``elimination``)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from redis.asyncio import Redis

from adapters.common.chart import worth_a_chart
from adapters.common.render import Text, match_chart
from bot.clock import ManualClock
from bot.play import MAX_PROGRESS
from bot.room import FINISHED, LOBBY, PLAYING, Room, User
from bot.service import GameService
from bot.store import Store
from bot.views import HandView, Line
from engine.cards import CARD_TEXT
from engine.families.petukh.view import PetukhExtras
from tests.pieces import pieces

from .conftest import PEOPLE, TURN, people_room

SIX = [*PEOPLE, User("tg:6", "Egor")]
NEW_PRESETS = [
    ("kozel-hvalenyi", 4, {}),
    ("kozel-hvalenyi", 4, {"deck": 32, "lyusya": "reset"}),
    ("kozel-nn", 4, {}),
    ("kozel-kocherga", 4, {"trump_suit": "hearts", "ace_rule": True}),
    ("petukh", 2, {}),
    ("petukh", 4, {"start": 15}),
    ("petukh", 6, {}),
    ("petukh-25", 3, {}),
    ("petukh-25", 4, {}),  # the longest matches: the room stays under 8 KB all the same
]


def _cards_in(text: str) -> set[str]:
    """Card texts that appear as words (``10H``) or drawn with suit symbols (``10♥``)."""
    found = set()
    drawn = text
    for sym, letter in (("♣", "C"), ("♠", "S"), ("♥", "H"), ("♦", "D")):
        drawn = drawn.replace(sym, letter)
    for word in drawn.replace("(", " ").replace(")", " ").replace(",", " ").split():
        if word in CARD_TEXT:
            found.add(word)
    return found


def _hands(svc: GameService, room: Room, people: list[User]) -> dict[str, HandView]:
    out = {}
    for u in people:
        hv = svc.hand_of(room, u.id)
        if hv is not None:
            out[u.id] = hv
    return out


@pytest.mark.parametrize(("preset", "n", "options"), NEW_PRESETS)
async def test_new_presets_play_to_the_end_through_buttons(
    svc: GameService, redis: Redis, preset: str, n: int, options: dict[str, object]
) -> None:
    people = SIX[:n]
    rid = await people_room(svc, people, preset=preset, seed=7, options=options)
    rng = random.Random(f"{preset}{n}")
    text = Text("en")
    kinds: set[str] = set()
    deals = 0
    for _step in range(6000):
        room = await svc.room(rid)
        assert room is not None
        if room.state != PLAYING:
            break
        hands = _hands(svc, room, people)
        # what the group sees never names a card that is in somebody's hand
        table = svc.table_of(room)
        table_text = text.table(table, now=0)
        # (a Petukh trump card is shown to all, also once the dealer has taken it, and so
        # are the boys a player declares)
        boys = table.extras.boys if isinstance(table.extras, PetukhExtras) else ()
        shown = {c for b in boys for c in b.cards}
        held = {c for hv in hands.values() for c in hv.cards} - {table.trump_card} - shown
        assert not (_cards_in(table_text) & held), table_text
        movers = [(u, hands[u.id]) for u in people if hands[u.id].on_move and hands[u.id].choices]
        optional = [(u, hands[u.id]) for u in people if not hands[u.id].on_move and hands[u.id].choices]
        if optional and rng.random() < 0.2:
            user, hv = rng.choice(optional)
        else:
            assert len(movers) == 1, [(u.name, hv.prompt) for u, hv in movers]
            user, hv = movers[0]
        choice = rng.choice(hv.choices)
        kinds.add(choice.kind)
        # an update id of a real size: Telegram's callback query ids are 19 digits
        out = await svc.act(choice.token, user, update_id=f"cb{rng.randrange(10**18, 10**19)}")
        assert out.ok, (out.reason, choice, hv.prompt)
        if out.room is not None and out.room.state == PLAYING:
            deals = max(deals, svc.table_of(out.room).deal_no)
    room = await svc.room(rid)
    assert room is not None and room.state == FINISHED, (preset, deals)
    assert room.result and room.result["winners"]
    if preset == "kozel-nn":
        assert {"cut", "play"} <= kinds
    if preset.startswith("petukh") and n < 6:
        assert "exchange" in kinds or "keep" in kinds
    # memory per room (issue 12.7): every key of the room, summed, its update claims and
    # its whole (capped) deal log included
    total = 0
    for key in await svc.store.room_keys(rid):
        total += await redis.memory_usage(key, samples=0) or 0
    assert total <= 8 * 1024, total


async def test_a_stale_cut_button_is_refused_and_changes_nothing(svc: GameService) -> None:
    """A cut token pressed a second time (the cut is done) is a quiet repeat for the cutter
    and refused for anyone else."""
    rid = await people_room(svc, PEOPLE[:4], preset="kozel-nn", seed=3)
    room = await svc.room(rid)
    assert room is not None
    cutter = next(u for u in PEOPLE[:4] if (hv := svc.hand_of(room, u.id)) and hv.on_move)
    hv = svc.hand_of(room, cutter.id)
    assert hv is not None and hv.prompt == "cut"
    cuts = [c for c in hv.choices if c.kind == "cut"]
    assert 1 <= len(cuts) <= 3 and all(c.number > 0 and not c.cards for c in cuts)
    assert (await svc.act(cuts[0].token, cutter)).ok
    room = await svc.room(rid)
    again = await svc.act(cuts[0].token, cutter)
    assert again.ok and again.repeat
    assert room is not None and await svc.room(rid) == room
    other = next(u for u in PEOPLE[:4] if u != cutter)
    refused = await svc.act(cuts[0].token, other)
    assert not refused.ok and refused.reason in ("stale", "not_your_turn", "wrong_action")


# --- RULES.md 5: elimination ------------------------------------------------------------------


async def run_until(
    svc: GameService, clock: ManualClock, rid: str, done: Callable[[Room], bool], steps: int = 40000
) -> None:
    """Let every turn time out (the computer moves for people too) until ``done``."""
    for _ in range(steps):
        room = await svc.room(rid)
        assert room is not None
        if done(room):
            return
        clock.advance(TURN)
        await pieces(svc).timers.run_timers()
    raise AssertionError("the table never got there")


async def _bots_room(svc: GameService, options: dict[str, object]) -> str:
    """Anna and three computer players at a Petukh table."""
    anna = PEOPLE[0]
    out = await svc.create("tg", "-300", None, anna, "petukh", options, size=4)
    assert out.ok
    rid = out.room.id  # type: ignore[union-attr]
    for _ in range(3):
        assert (await svc.add_bot(rid, anna, "rules")).ok
    return rid


async def test_r5_elimination_queue_refusals(svc: GameService) -> None:
    anna, boris, vera = PEOPLE[:3]
    out = await svc.create("tg", "-301", None, anna, "petukh", {}, size=2)
    rid = out.room.id  # type: ignore[union-attr]
    assert (await svc.wait(rid, boris)).reason == "no_queue"  # the option is off
    assert (await svc.set_option(rid, anna, "elimination", "true")).ok
    assert (await svc.wait(rid, boris)).reason == "seat_free"  # join instead
    assert (await svc.wait(rid, anna)).reason == "already_seated"
    assert (await svc.join(rid, boris)).ok
    assert (await svc.wait(rid, vera)).ok
    assert (await svc.wait(rid, vera)).reason == "already_waiting"
    room = await svc.room(rid)
    assert room is not None and [q["name"] for q in room.queue] == ["Vera"]
    assert svc.table_of(room).queue == ["Vera"]
    # a seat freed in the lobby goes to the first in the queue
    assert (await svc.leave(rid, boris)).ok
    room = await svc.room(rid)
    assert room is not None and room.seat_of(vera.id) == 1 and room.queue == []
    assert (await svc.unwait(rid, boris)).reason == "not_waiting"
    assert (await svc.wait(rid, boris)).ok
    assert (await svc.unwait(rid, boris)).ok
    room = await svc.room(rid)
    assert room is not None and room.queue == [] and room.state == LOBBY


async def test_r5_elimination_the_rooster_gives_his_seat_and_a_new_match_starts(
    svc: GameService, clock: ManualClock
) -> None:
    anna, dasha = PEOPLE[0], PEOPLE[4]
    rid = await _bots_room(svc, {"elimination": True})
    assert (await svc.start(rid, anna, seed=11)).ok
    assert (await svc.wait(rid, dasha)).ok
    first = await svc.room(rid)
    assert first is not None
    gen = first.gen
    await run_until(svc, clock, rid, lambda r: r.gen != gen)
    room = await svc.room(rid)
    assert room is not None and room.gen == gen + 1
    assert room.state == PLAYING  # the new match started by itself
    keys = [ln["key"] for ln in room.events]
    assert "eliminated" in keys
    gone = next(ln for ln in room.events if ln["key"] == "eliminated")["params"]
    assert room.seats[gone["seat"]] is not None
    assert room.seats[gone["seat"]].user == dasha.id  # type: ignore[union-attr]
    # the finished match is in the chat's history, with the rooster's record the highest
    last = (await pieces(svc).stats.recent_matches("tg", "-300"))[0]
    score = last["score"]
    assert score[gone["seat"]] == max(score)
    # the ended match's score by deal is kept for its result's chart while the next one runs
    progress = room.result_progress()
    assert progress and progress[-1] == score and room.progress == []
    # a person who lost his seat would queue again; the computer player just left
    assert all(q["user"] != dasha.id for q in room.queue)


async def test_r5_elimination_without_a_queue_finishes_as_usual(svc: GameService, clock: ManualClock) -> None:
    rid = await _bots_room(svc, {"elimination": True})
    assert (await svc.start(rid, PEOPLE[0], seed=5)).ok
    await run_until(svc, clock, rid, lambda r: r.state == FINISHED)
    room = await svc.room(rid)
    assert room is not None and room.state == FINISHED and room.gen == 1
    # its score by deal, for the result's chart, is the records after each deal
    last = (await pieces(svc).stats.recent_matches("tg", "-300"))[0]
    assert room.result_progress() == room.progress and room.progress[-1] == last["score"]


@pytest.mark.parametrize("preset", ["kozel", "kozel-nn", "petukh-25"])
async def test_a_match_keeps_its_score_after_each_deal_for_its_chart(
    svc: GameService, clock: ManualClock, preset: str
) -> None:
    anna = PEOPLE[0]
    out = await svc.create("tg", "-303", None, anna, preset, {}, size=4)
    rid = out.room.id  # type: ignore[union-attr]
    for _ in range(3):
        assert (await svc.add_bot(rid, anna, "rules")).ok
    assert (await svc.start(rid, anna, seed=3)).ok
    deals: list[list[int]] = []
    for _ in range(40000):
        room = await svc.room(rid)
        assert room is not None
        if room.progress != deals:  # one row more after each deal, the score after it
            # (the last MAX_PROGRESS deals of a very long match)
            assert room.progress[:-1] == deals[-(MAX_PROGRESS - 1) :]
            deals = room.progress
        if room.state == FINISHED:
            break
        clock.advance(TURN)
        await pieces(svc).timers.run_timers()
    assert room.state == FINISHED and len(deals) >= 2
    assert room.progress[-1] == room.result["score"]  # type: ignore[index]
    # these matches are long (seed 3: several deals each): their results get a chart
    assert worth_a_chart(room.result_progress())
    assert match_chart(svc.table_of(room), room.result_progress()) is not None


async def test_r5_elimination_a_person_rooster_goes_to_the_end_of_the_queue(
    store: Store, clock: ManualClock
) -> None:
    """Four people who time out every move (the computer moves for them); Dasha waits."""
    from .conftest import make_settings

    svc = GameService(store, make_settings(missed_turns_to_bot=1000), clock)
    four, dasha = PEOPLE[:4], PEOPLE[4]
    rid = await people_room(svc, four, chat="-302", preset="petukh", seed=4, options={"elimination": True})
    assert (await svc.wait(rid, dasha)).ok
    await run_until(svc, clock, rid, lambda r: r.gen != 1)
    room = await svc.room(rid)
    assert room is not None and room.gen == 2 and room.state == PLAYING
    gone = next(ln for ln in room.events if ln["key"] == "eliminated")["params"]
    assert room.seats[gone["seat"]].user == dasha.id  # type: ignore[union-attr]
    assert [q["name"] for q in room.queue] == [gone["name"]]
    assert await svc.rooms_of(dasha.id)


# --- found in review -----------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["kozel-nn", "petukh", "kozel-hvalenyi"])
async def test_a_forged_declare_button_in_a_game_without_declarations(svc: GameService, preset: str) -> None:
    rid = await people_room(svc, PEOPLE[:4], preset=preset, seed=2)
    room = await svc.room(rid)
    assert room is not None
    for u in PEOPLE[:4]:
        hv = svc.hand_of(room, u.id)
        assert hv is not None
        head = hv.choices[0].token.rsplit(".", 2)[0] if hv.choices else None
        if head is None:
            continue
        out = await svc.act(f"{head}.-.d", u)
        assert not out.ok and out.reason == "declaration_closed"


async def test_r5_queue_people_take_seats_freed_in_the_lobby_and_never_sit_twice(
    svc: GameService, clock: ManualClock
) -> None:
    anna, boris, vera, gleb = PEOPLE[:4]
    out = await svc.create("tg", "-303", None, anna, "petukh", {"elimination": True}, size=3)
    rid = out.room.id  # type: ignore[union-attr]
    assert (await svc.add_bot(rid, anna, "rules")).ok
    assert (await svc.join(rid, boris)).ok
    assert (await svc.wait(rid, vera)).ok and (await svc.wait(rid, gleb)).ok
    assert (await svc.remove_bot(rid, anna)).ok  # Vera takes the bot's seat
    room = await svc.room(rid)
    assert room is not None and room.seat_of(vera.id) is not None
    assert [q["user"] for q in room.queue] == [gleb.id]
    assert [r.id for r in await svc.rooms_of(vera.id)] == [rid]
    assert (await svc.kick(rid, anna, boris.id, False)).ok  # Gleb takes Boris's seat
    room = await svc.room(rid)
    assert room is not None and room.seat_of(gleb.id) is not None and room.queue == []
    assert (await svc.set_size(rid, anna, 4)).ok
    assert (await svc.wait(rid, boris)).reason == "seat_free"
    assert (await svc.join(rid, boris)).ok
    # a person both seated and queued (by a race of two workers) is never seated twice
    room = await svc.room(rid)
    assert room is not None
    assert len({s.user for s in room.seats if s is not None}) == 4


async def test_r5_the_rooster_line_names_the_rooster_not_the_newcomer(
    store: Store, clock: ManualClock
) -> None:
    from .conftest import make_settings

    svc = GameService(store, make_settings(missed_turns_to_bot=1000), clock)
    four, dasha = PEOPLE[:4], PEOPLE[4]
    rid = await people_room(svc, four, chat="-304", preset="petukh", seed=4, options={"elimination": True})
    assert (await svc.wait(rid, dasha)).ok
    await run_until(svc, clock, rid, lambda r: r.gen != 1)
    room = await svc.room(rid)
    assert room is not None and room.gen == 2
    gone = next(ln for ln in room.events if ln["key"] == "eliminated")["params"]
    rooster = next(ln for ln in room.events if ln["key"] == "rooster_chosen")
    text = Text("en").line(Line(rooster["key"], rooster["params"]), svc.table_of(room))
    assert gone["name"] in text and dasha.name not in text


async def test_r5_a_new_deal_keeps_the_turn_timer(svc: GameService, clock: ManualClock) -> None:
    """The turn's start is not reset by a later write to the room (the turn key is the same
    after the room is loaded again)."""
    rid = await people_room(svc, PEOPLE[:2], chat="-305", preset="petukh", seed=8)
    for _ in range(200):
        room = await svc.room(rid)
        assert room is not None
        before = room.load_match().deal_no
        user = next(u for u in PEOPLE[:2] if (h := svc.hand_of(room, u.id)) and h.on_move)
        hv = svc.hand_of(room, user.id)
        assert hv is not None
        out = await svc.act(hv.choices[0].token, user)
        assert out.ok and out.room is not None
        if out.room.state == PLAYING and out.room.load_match().deal_no != before:
            break
    room = await svc.room(rid)
    assert room is not None
    deadline = room.deadline
    clock.advance(40)
    assert (await pieces(svc).platform.data.set_room_data(rid, tg_table=1)).ok
    again = await svc.room(rid)
    assert again is not None and again.deadline == deadline


async def test_r5_six_players_keep_or_pass(svc: GameService) -> None:
    rid = await people_room(svc, SIX, preset="petukh", seed=1)
    room = await svc.room(rid)
    assert room is not None
    hv = next(h for u in SIX if (h := svc.hand_of(room, u.id)) and h.on_move)
    assert hv.prompt == "keep_or_pass"
    assert {c.kind for c in hv.choices} <= {"keep", "pass"}
    assert "pass" in Text("en").prompt(hv)


async def test_a_computer_that_may_ask_for_a_redeal_does_not_show_in_the_countdown(
    svc: GameService, clock: ManualClock
) -> None:
    """The table's countdown is the person's own time, also while a computer player has
    its (hidden) chance to ask for a redeal."""
    from engine.presets import make_rules
    from engine.registry import new_match

    rules = make_rules("kozel-hvalenyi", 4)
    seed = next(s for s in range(2000) if (a := new_match(rules, seed=s).to_act())[0] == 0 and len(a) > 1)
    anna = PEOPLE[0]
    out = await svc.create("tg", "-306", None, anna, "kozel-hvalenyi", {}, size=4)
    rid = out.room.id  # type: ignore[union-attr]
    for _ in range(3):
        assert (await svc.add_bot(rid, anna, "random")).ok
    assert (await svc.start(rid, anna, seed=seed)).ok
    room = await svc.room(rid)
    assert room is not None and room.deadline is not None
    assert room.deadline < clock.now() + TURN  # the computer's chance comes first
    table = svc.table_of(room)
    assert table.deadline == clock.now() + TURN


async def test_r5_queued_after_the_match_seated_by_another_match(
    svc: GameService, clock: ManualClock
) -> None:
    """Nobody waited when the match ended; Dasha queues on the finished table and "Another
    match" gives her the rooster's seat."""
    anna, dasha = PEOPLE[0], PEOPLE[4]
    rid = await _bots_room(svc, {"elimination": True})
    assert (await svc.start(rid, anna, seed=5)).ok
    await run_until(svc, clock, rid, lambda r: r.state == FINISHED)
    room = await svc.room(rid)
    assert room is not None and room.state == FINISHED
    roosters = room.load_match().roosters  # type: ignore[attr-defined]
    assert (await svc.wait(rid, dasha)).ok
    out = await svc.rematch(rid, anna)
    assert out.ok and out.room is not None
    room = out.room
    assert room.state == PLAYING and room.gen == 2
    if roosters:
        assert room.seats[roosters[0]].user == dasha.id  # type: ignore[union-attr]
        assert [r.id for r in await svc.rooms_of(dasha.id)] == [rid]
    # the finished match was recorded once, when it ended
    assert len(await pieces(svc).stats.recent_matches("tg", "-300")) == 1


def test_r5a_a_petukh_25_hand_offers_only_the_trump_and_says_why_not() -> None:
    """RULES.md 5a's example in a hand: trump spades, KC led; 7C and 9S held: only 9S (and
    the skip) are offered, and a tap on 7C says "no higher card of the suit: play a trump"."""
    from bot.room import Seat
    from bot.views import hand_view
    from tests.engine.petukh_helpers import act, deal, keep_all

    m = deal("petukh-25", 2, 0, {1: "KC 7D 8D 9D 10D", 0: "7C 8H 9H 10H 9S"})
    keep_all(m)
    act(m, 1, "play KC")
    room = Room(
        id="r1",
        platform="tg",
        chat="c1",
        thread=None,
        preset="petukh-25",
        options={},
        size=2,
        seats=[Seat("tg:1", "Anna"), Seat("tg:2", "Boris")],
        creator="tg:1",
        state=PLAYING,
        players=2,
    )
    hv = hand_view(room, m, 0, now=0.0)
    assert hv.on_move and {(c.kind, tuple(c.cards)) for c in hv.choices} == {("play", ("9S",)), ("skip", ())}
    assert hv.why_not["7C"] == "must_trump_no_higher"
    assert Text("en").reason(hv.why_not["7C"]) == ("You have no higher card of the suit: play a trump.")
