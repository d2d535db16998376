"""Local play on the web table: ``python -m bot play --web``. One person against computer
players on 127.0.0.1, no Telegram: the person is whoever holds this run's session token,
which only the printed address carries (after ``#``, so it never reaches a log)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import sys
from collections.abc import Sequence
from typing import TextIO

from adapters.common.lobby import LEVELS
from adapters.common.render import Text
from adapters.web.server import Local, WebTable
from bot.config import Settings
from bot.metrics import Metrics
from bot.room import FINISHED, User, room_id_for
from bot.service import GameService, Services

PLATFORM = "web"
CHAT = "local"
YOU = "web:you"
HOST = "127.0.0.1"


async def open_table(
    service: GameService,
    you: User,
    preset: str,
    players: int,
    seed: int | None,
    options: dict[str, object] | None,
    bots: Sequence[str],
) -> str | None:
    """The saved game goes on, or a new one is dealt: None, or why not (a reason code)."""
    rid = room_id_for(PLATFORM, CHAT)
    room = await service.room(rid)
    if room is not None and room.state != FINISHED and room.preset == preset:
        return None
    if room is not None and room.state != FINISHED:
        await service.cancel(rid, you, is_admin=True)
    out = await service.create(PLATFORM, CHAT, None, you, preset, options, size=players)
    if not out.ok:
        return out.reason
    levels = list(bots) if len(bots) == players - 1 else [bots[0]] * (players - 1)
    for level in levels:
        added = await service.add_bot(rid, you, level)
        if not added.ok:
            await service.cancel(rid, you, is_admin=True)
            return added.reason
    started = await service.start(rid, you, seed=seed)
    return None if started.ok else started.reason


async def play(
    settings: Settings,
    preset: str,
    players: int,
    seed: int | None,
    lang: str,
    options: dict[str, object] | None = None,
    port: int = 8081,
    out: TextIO = sys.stdout,
    metrics: Metrics | None = None,
    bots: Sequence[str] = ("normal",),
    stop: asyncio.Event | None = None,
) -> int:
    # a person at home is never hurried
    settings = settings.model_copy(update={"turn_seconds": 10**9})
    service = await GameService.open(settings, metrics=metrics)
    t = Text(lang)
    you = User(YOU, t._("Player"), lang)
    table: WebTable | None = None
    try:
        refused = await open_table(service, you, preset, players, seed, options, bots)
        if refused is not None:
            out.write(t.reason(refused) + (" " + ", ".join(LEVELS) if refused == "bad_level" else "") + "\n")
            return 2
        session = Local(secrets.token_urlsafe(16), room_id_for(PLATFORM, CHAT), you, lang)
        table = WebTable(service, service.chats, local=session)
        port = await table.start(HOST, port)
        url = f"http://{HOST}:{port}/#{session.token}"
        out.write(t._("The table is open in your browser at {url}").format(url=url) + "\n")
        out.write(t._("Ctrl+C ends; the game stays saved.") + "\n")
        out.flush()
        stop = stop or asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        await Services.on(service).timers.serve_timers(stop)
        return 0
    finally:
        if table is not None:
            await table.close()
        await service.close()
