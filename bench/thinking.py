"""The event loop while hard computer players think (issue 15).

Twenty searches of ``SEARCH_MS`` each are handed to the service's ``Thinker`` (a process
pool of ``--workers``) at once, over and over for ``--seconds``; a ticker on the same event
loop wakes every millisecond and records how late it woke. The figure is that lag's p50,
p99 and max (the goal: p99 < 10 ms), beside the searches finished and their playouts.
``--workers 0`` shows what thinking on the service's own process would do (a thread: the
GIL).

    python bench/thinking.py [--players 20] [--ms 300] [--workers 2] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from bot.thinking import Thinker  # noqa: E402
from engine.codec import pack_action  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.players.bots import RulesBot  # noqa: E402
from engine.presets import make_rules  # noqa: E402
from engine.registry import new_match  # noqa: E402


def positions(count: int) -> list[tuple[Game, int]]:
    """Matches a few moves into their first deal, each with its seat on move."""
    rules = make_rules("kozel", 4)
    out = []
    for seed in range(count):
        match = new_match(rules, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 8)):
            seat = match.to_act()[0]
            legal = match.legal_actions(seat)
            match.apply(seat, RulesBot().choose(match.observe(seat), legal, rng, True) or legal[0])
        out.append((match, match.to_act()[0]))
    return out


async def measure(players: int, ms: float, workers: int, seconds: float) -> str:
    thinker = Thinker(workers, ms, None)
    games = positions(players)
    lags: list[float] = []
    done = 0
    playouts = 0
    stop = 0.0

    async def ticker() -> None:
        while not lags or time.perf_counter() < stop:  # (one tick at least)
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(max(0.0, time.perf_counter() - t - 0.001))

    async def player(i: int) -> None:
        nonlocal done, playouts
        match, seat = games[i]
        state = match.to_state()
        log = ",".join(pack_action(s, a) for s, a in match.history[-1].actions)
        while time.perf_counter() < stop:
            idea = await thinker.think(match.rules, state, log, seat, f"{i}:{done}")
            done += 1
            playouts += idea.playouts

    # warm the pool up first (process start-up is not thinking)
    await thinker.think(games[0][0].rules, games[0][0].to_state(), "", games[0][1], "warm")
    stop = time.perf_counter() + seconds  # (after the warm-up: a short run still measures)
    try:
        await asyncio.gather(ticker(), *(player(i) for i in range(players)))
    finally:
        thinker.close()
    lags.sort()
    p99 = lags[int(len(lags) * 0.99)] * 1000
    return (
        f"{players} hard players, SEARCH_MS {ms:.0f}, {workers} worker processes: "
        f"loop lag p50 {statistics.median(lags) * 1000:.2f} ms, p99 {p99:.2f} ms, "
        f"max {lags[-1] * 1000:.1f} ms; {done} searches, {playouts / max(1, done):.0f} "
        f"playouts each"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--ms", type=float, default=300.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M')} · Python {sys.version.split()[0]} · load "
        + " ".join(f"{x:.1f}" for x in os.getloadavg()),
        flush=True,
    )
    print(asyncio.run(measure(args.players, args.ms, args.workers, args.seconds)))


if __name__ == "__main__":
    main()
