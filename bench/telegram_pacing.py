"""How closely a Telegram group can follow a table under Telegram's limit (issue 13 item 1).

    python bench/telegram_pacing.py [--seeds 0-9] [--game kozel] [--people 2] [--bots 2] \
        [--spam 4] [--admin]

Uses ``REDIS_URL`` or ``redis://127.0.0.1:6379/13`` and EMPTIES that database first.

Each seed deals one whole match (the same on every run) in a group through the real
aiogram adapter against the fake Bot API (tests/fakes/telegram/), which answers 429
past 20 group writes a minute; people think 1-6 s a move, computer players move after 1 s.
Time is a manual clock that jumps from event to event, so the figures do not depend on the
machine. ``--spam N``: a member who does not play sends ``/top`` every N seconds, typed
(a plain message, not the menu's ephemeral command), through the whole match (issue 33);
``--admin``: the bot is an admin of the group (his answers are then ephemeral). The bot's
own limits on commands are as they ship.

Prints per seed and overall: moves, the longest a move waited to be on the table, the
longest the table went unwritten while moves were made, the delay of the match's result
after the last move, the most group writes in a minute, 429s. Goals: <= 8 s, <= 8 s,
<= 8 s, <= 20, 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from redis.asyncio import Redis  # noqa: E402

from tests.telegram.harness import telegram  # noqa: E402
from tests.telegram.pacing import Spam, play_paced  # noqa: E402
from tests.telegram.test_pacing import open_paced_table  # noqa: E402


def seeds_of(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


async def one(
    redis: Redis, seed: int, game: str, people: int, bots: int, spam: float, admin: bool
) -> dict[str, float]:
    await redis.flushdb()
    async with telegram(redis, real_limits=True) as env:
        if admin:
            env.fake.set_member(env.group, env.fake.bot, "administrator")
        await open_paced_table(env, people, bots, game, seed)
        spammer = Spam(env.users[3], spam) if spam else None
        f = await play_paced(env, seed, spam=spammer)
        return {
            "spam": spammer.sent if spammer else 0,
            "moves": len(f.moves),
            "minutes": (f.last_move - f.moves[0]) / 60,
            "worst_wait": f.worst_wait(),
            "longest_gap": f.longest_gap(),
            "result_delay": f.result_delay(),
            "per_minute": f.writes_per_minute,
            "refused": f.refused,
        }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0-9")
    ap.add_argument("--game", default="kozel")
    ap.add_argument("--people", type=int, default=2)
    ap.add_argument("--bots", type=int, default=2)
    ap.add_argument("--spam", type=float, default=0.0, help="a member's /top every N seconds")
    ap.add_argument("--admin", action="store_true", help="the bot is an admin of the group")
    args = ap.parse_args()
    redis = Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/13"))
    rows = []
    print(
        f"{args.game}, {args.people} people + {args.bots} computer players, "
        "20 group writes a minute enforced"
        + (f"; /top every {args.spam:g} s from a member not playing" if args.spam else "")
        + (" (the bot an admin)" if args.admin else "")
        + "; load average "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    print("seed  moves  min   worst wait  longest gap  result after  writes/min  429s  spam")
    try:
        for seed in seeds_of(args.seeds):
            r = await one(redis, seed, args.game, args.people, args.bots, args.spam, args.admin)
            rows.append(r)
            print(
                f"{seed:4}  {r['moves']:5.0f}  {r['minutes']:4.1f}  {r['worst_wait']:9.2f}s"
                f"  {r['longest_gap']:10.2f}s  {r['result_delay']:11.2f}s"
                f"  {r['per_minute']:10.0f}  {r['refused']:4.0f}  {r['spam']:4.0f}"
            )
    finally:
        await redis.aclose()
    print(
        f"all   {sum(r['moves'] for r in rows):5.0f}        "
        f"{max(r['worst_wait'] for r in rows):9.2f}s  {max(r['longest_gap'] for r in rows):10.2f}s"
        f"  {max(r['result_delay'] for r in rows):11.2f}s"
        f"  {max(r['per_minute'] for r in rows):10.0f}  {sum(r['refused'] for r in rows):4.0f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
