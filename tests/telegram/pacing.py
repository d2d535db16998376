"""A table played as a group plays it, on the manual clock, against a fake that enforces
Telegram's 20 writes a minute to a group: the figures of issue 13 item 1.

People think 1-6 s a move (a seeded draw), act through the buttons of their newest hand
message; computer players move through the service's timers. Time jumps from one event to
the next (a person ready, a computer's deadline, the painter's next write), so a match
takes a few seconds of real time and the figures are the same on any machine.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from tests.fakes.telegram import FakeMessage, FakeUser
from tests.pieces import pieces
from tests.telegram.harness import Env, pick

THINK = (1.0, 6.0)


@dataclass
class Figures:
    moves: list[float] = field(default_factory=list)  # the clock at each committed move
    edits: list[float] = field(default_factory=list)  # the clock at each table write
    result_at: float | None = None  # the table first showed the match's result
    end_at: float | None = None  # the move that ended the match was made
    refused: int = 0  # 429s the fake gave
    writes_per_minute: int = 0  # the most group writes in any 60 s

    @property
    def last_move(self) -> float:
        return self.moves[-1]

    def result_delay(self) -> float:
        """How long after the match's last move its result was on the table."""
        if self.result_at is None or self.end_at is None:
            return float("inf")
        return self.result_at - self.end_at

    def worst_wait(self) -> float:
        """The longest a move waited for the table to be written after it."""
        worst = 0.0
        for m in self.moves:
            after = [e for e in self.edits if e >= m]
            worst = max(worst, (after[0] if after else float("inf")) - m)
        return worst

    def longest_gap(self) -> float:
        """The longest the table went unwritten while moves were being made."""
        first, last = self.moves[0], self.last_move
        marks = [first] + [e for e in self.edits if first <= e <= last] + [last]
        return max(b - a for a, b in zip(marks, marks[1:], strict=False))


@dataclass
class Spam:
    """A member who is not playing sends ``command`` every ``every`` seconds, typed past
    the menu (a plain message, not an ephemeral command): the worst case of issue 33."""

    user: FakeUser
    every: float
    command: str = "/top"
    next_at: float = 0.0
    sent: int = 0


async def play_paced(env: Env, seed: int, max_events: int = 20000, spam: Spam | None = None) -> Figures:
    """Play the open table to its end; return what was measured."""
    rng = random.Random(seed)
    figures = Figures()
    if spam is not None:
        spam.next_at = env.clock.now()
    table = env.table_message()
    ready: dict[int, float] = {}  # person -> when he will have decided
    humans = [u for u in env.users if (await env.room()).seat_of(f"tg:{u.id}") is not None]

    async def note(room: object, lines: list[object]) -> None:
        if any(getattr(ln, "key", "") in MOVE_KEYS for ln in lines):
            figures.moves.append(env.clock.now())
        if getattr(room, "state", "") == "finished" and figures.end_at is None:
            figures.end_at = env.clock.now()

    env.service.on_change(note)  # type: ignore[arg-type]
    for _ in range(max_events):
        room = await env.room()
        if room.state != "playing":
            break
        now = env.clock.now()
        if spam is not None and spam.next_at <= now:
            await env.say(spam.user, spam.command, ephemeral=False)
            spam.sent += 1
            spam.next_at = now + spam.every
            continue
        for user in humans:
            hand = env.service.hand_of(room, f"tg:{user.id}")
            moves = [c for c in hand.choices if c.kind != "declare"] if hand else []
            if not hand or not hand.on_move or not moves:
                ready.pop(user.id, None)
                continue
            at = ready.setdefault(user.id, now + rng.uniform(*THINK))
            if at <= now:
                choice = pick(hand.choices, rng, True)
                assert choice is not None
                await env.play(user, choice)
                ready.pop(user.id, None)
                break
        else:
            await _advance(env, ready, spam.next_at if spam is not None else None)
    await _finish(env, figures, table)
    return figures


MOVE_KEYS = frozenset(
    {
        "led",
        "beaten",
        "thrown",
        "played",
        "declared",
        "covered",
        "laid",
        "exchanged",
        "kept",
        "passed",
        "trump_swapped",
        "trump_left",
        "skipped",
        "deck_cut",
        "redeal_asked",
        "boast_chosen",
        "boys_declared",
        "boys_finish",
    }
)


async def _advance(env: Env, ready: dict[int, float], spam_at: float | None = None) -> None:
    """Jump to the next event: a person's decision, a computer's move, a painter's write,
    a spammer's command."""
    now = env.clock.now()
    room = await env.room()
    due = await env.app.painter.flush()
    times = list(ready.values())
    if spam_at is not None:
        times.append(spam_at)
    if room.deadline is not None:
        times.append(room.deadline)
    if due is not None:
        times.append(now + due)
    later = [t for t in times if t > now]
    env.clock.advance((min(later) - now) if later else 0.25)
    await pieces(env.service).timers.run_timers()
    await env.flush()


async def _finish(env: Env, figures: Figures, table: FakeMessage) -> None:
    """Let the painter write what it holds; read the table's writes from the fake. A table
    the chat scrolled far away from is posted again below: its new message is the table
    from then on (a write of the table too)."""
    for _ in range(40):
        if "🏁" in (env.table_message().text or ""):
            break
        env.clock.advance(0.25)
        await env.flush()
    calls = [
        c
        for c in env.fake.api_calls()
        if c.ok
        and c.method in ("editMessageText", "sendMessage")
        and int(c.params.get("chat_id") or 0) == env.group.id
        and not c.params.get("ephemeral_message_parameters")
    ]
    tables = {table.message_id}
    ours = []
    for c in calls:
        if c.method == "sendMessage" and "T:" in json.dumps(c.params.get("reply_markup") or {}):
            tables.add(int(c.result["message_id"]))
            ours.append(c)
        elif c.method == "editMessageText" and c.params.get("message_id") in tables:
            ours.append(c)
    figures.edits = [c.at for c in ours]
    figures.result_at = next((c.at for c in ours if "🏁" in str(c.params.get("text"))), None)
    figures.refused = len(env.fake.limits.flood.refused) if env.fake.limits.flood else 0
    times = sorted(c.at for c in calls)
    figures.writes_per_minute = max((sum(1 for u in times if t <= u < t + 60) for t in times), default=0)
