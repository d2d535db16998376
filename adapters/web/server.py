"""The web table's server: the page, and a WebSocket per open table (aiohttp).

Every worker follows the service's change feed (Redis pub/sub: a commit on any worker
reaches every worker), and for each room it has sockets on loads the room once per change
(coalesced: a burst of moves is one load of the newest) and sends each socket its own
view. A socket that (re)connects gets the current state at once; now and then the worker
compares the versions of its rooms with Redis, so a message lost while Redis restarted
costs a moment, not a stale table.

Bad input changes nothing and gets an ``error`` frame: a forged or stale initData or a
wrong link closes the socket (the page does not retry), a frame too big or a flood of them
closes it too, garbage is refused and, repeated, closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from aiohttp import WSCloseCode, WSMsgType, web

from adapters.common.i18n import LANGUAGES
from adapters.common.render import Text
from adapters.web import frames
from adapters.web.auth import Person, Refusal, local_person, telegram_person
from adapters.web.replay import replay_document
from adapters.web.words import error_words, page_words
from bot.records import ChatSettings
from bot.room import Room, User
from bot.service import GameService, Refused

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
MAX_FRAME = 4096  # bytes a frame in: the largest real one (a hello) is under 2 KB
RATE_FRAMES, RATE_SECONDS = 20, 5.0  # a person taps a few times a second at most
BAD_FRAMES = 5  # refused frames before the socket is closed
HELLO_SECONDS = 15.0
SWEEP_SECONDS = 5.0  # how often a worker compares its rooms' versions with Redis
FRAME_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
MAX_TOKEN = 200
# close codes the page does not retry after: who you are, or which table, was refused
CLOSE_AUTH, CLOSE_NO_TABLE = 4401, 4404


@dataclass(frozen=True)
class Local:
    """The local session of ``play --web``: its token, its table, its person."""

    token: str
    room_id: str
    user: User
    lang: str


@dataclass(eq=False)
class Socket:
    ws: web.WebSocketResponse
    user: User
    room_id: str
    text: Text
    times: deque[float] = field(default_factory=deque)
    bad: int = 0


@dataclass(eq=False)
class Follow:
    """A room this worker has sockets on: the newest version heard of and the last sent."""

    sockets: set[Socket] = field(default_factory=set)
    wanted: int = 0
    sent: int = 0
    task: asyncio.Task[None] | None = None


@dataclass
class Counters:
    frames_out: int = 0
    frames_in: int = 0
    loads: int = 0


class WebTable:
    def __init__(
        self,
        service: GameService,
        chats: ChatSettings,
        *,
        local: Local | None = None,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        member: Callable[[int, int], Awaitable[bool]] | None = None,
    ) -> None:
        self.service = service
        self.chats = chats  # a group's language
        # is a Telegram user a member of a group (getChatMember): who may watch a table
        self.member = member
        self.settings = service.settings
        self.local = local
        self.wall = wall  # initData's auth_date is wall-clock time
        self.monotonic = monotonic  # the flood limit's
        self.follows: dict[str, Follow] = {}
        self.counters = Counters()
        self._follower: asyncio.Task[None] | None = None
        self._runner: web.AppRunner | None = None
        self._sockets: set[Socket] = set()
        self._closing = False

    @property
    def open_sockets(self) -> int:
        return len(self._sockets)

    # --- life -----------------------------------------------------------------------------

    def application(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/replay", self._replay_page)
        app.router.add_get("/replay.json", self._replay_data)
        app.router.add_static("/static/", STATIC, append_version=False)
        return app

    async def start(self, host: str, port: int) -> int:
        """Serve on ``host:port`` (0: any free port); returns the port."""
        self._follower = asyncio.create_task(self._follow(), name="web-follow")
        self._runner = web.AppRunner(self.application(), handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        return int(sockets[0].getsockname()[1]) if sockets else port

    async def close(self) -> None:
        """Stop: every socket is told the server is going away (the page reconnects)."""
        self._closing = True
        for sock in list(self._sockets):
            with contextlib.suppress(Exception):
                await sock.ws.close(code=WSCloseCode.GOING_AWAY, message=b"restart")
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._follower
        for f in self.follows.values():
            if f.task is not None:
                f.task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _index(self, _request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def _replay_page(self, _request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "replay.html", headers={"Cache-Control": "no-cache"})

    async def _replay_data(self, request: web.Request) -> web.Response:
        """An ended match's replay, named by its link (issue 36.4); a bad link: 404."""
        lang = request.query.get("lang", "")
        t = Text(lang if lang in LANGUAGES else self.settings.default_language)
        rep = await self.service.history.replay_by_link(request.query.get("link", ""))
        if rep is None:
            return web.json_response({"error": t._("This replay is no longer kept.")}, status=404)
        return web.json_response(replay_document(t, rep), headers={"Cache-Control": "no-store"})

    async def _healthz(self, _request: web.Request) -> web.Response:
        return web.Response(text="ok")

    # --- following the rooms ------------------------------------------------------------------

    async def _follow(self) -> None:
        feed = self.service.follow_changes()
        swept = self.monotonic()
        try:
            while True:
                try:
                    got = await feed.next(timeout=1.0)
                    if got is not None:
                        self.notify(*got)
                    if self.monotonic() - swept >= SWEEP_SECONDS:
                        swept = self.monotonic()
                        await self._sweep()
                except asyncio.CancelledError:
                    raise
                except Exception:  # Redis restarting: redis-py reconnects and subscribes again
                    log.warning("web table: the change feed failed; again in a moment", exc_info=True)
                    await asyncio.sleep(0.5)
        finally:
            with contextlib.suppress(Exception):
                await feed.close()

    async def _sweep(self) -> None:
        ids = list(self.follows)
        if not ids:
            return
        for rid, version in zip(ids, await self.service.versions(ids), strict=True):
            if version:
                self.notify(rid, version)

    def notify(self, room_id: str, version: int) -> None:
        """``room_id`` is at ``version``: send it to its sockets here, unless sent."""
        follow = self.follows.get(room_id)
        if follow is None or version <= follow.sent:
            return
        follow.wanted = max(follow.wanted, version)
        if follow.task is None:
            follow.task = asyncio.create_task(self._pump(room_id, follow), name=f"web-pump-{room_id}")

    async def _pump(self, room_id: str, follow: Follow) -> None:
        try:
            while follow.wanted > follow.sent and follow.sockets:
                asked = follow.wanted
                room = await self.service.room(room_id)
                self.counters.loads += 1
                if room is None:
                    for sock in list(follow.sockets):
                        await self._refuse(sock.ws, sock.text, "no_table", CLOSE_NO_TABLE)
                    return
                follow.sent = max(follow.sent, room.version)
                if follow.wanted == asked:  # nothing newer heard meanwhile: what is stored
                    follow.wanted = follow.sent  # is the newest (never a version it lacks)
                await self._push(room, list(follow.sockets))
        except Exception:
            log.exception("web table: pushing %s", room_id)
        finally:
            follow.task = None

    async def _push(self, room: Room, sockets: list[Socket]) -> None:
        """Each socket its own view of ``room``: the public table (worded once a language)
        and, to a seated person, his hand."""
        table = self.service.table_of(room)
        now = self.service.clock.now()
        progress = room.result_progress()
        public: dict[str, dict[str, Any]] = {}
        sends = []
        for sock in sockets:
            lang = sock.text.lang
            if lang not in public:
                public[lang] = frames.table_frame(table, sock.text, now, self.settings.turn_seconds, progress)
            frame: dict[str, Any] = {"type": "state", "v": room.version, "table": public[lang], "hand": None}
            seat = room.seat_of(sock.user.id)
            frame["me"] = seat
            # his agreement is asked for (the one who asked may only give up)
            frame["agree"] = table.vote is not None and sock.user.id in table.vote.waiting
            if seat is not None:
                hand = self.service.hand_of(room, sock.user.id)
                if hand is not None:
                    frame["hand"] = frames.hand_frame(hand, sock.text)
            sends.append(self._send(sock.ws, frame))
        await asyncio.gather(*sends)

    async def _send(self, ws: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        if ws.closed:
            return
        try:
            await ws.send_str(orjson.dumps(frame).decode())
            self.counters.frames_out += 1
        except (ConnectionError, RuntimeError):  # gone meanwhile: its handler cleans up
            pass

    # --- one socket -------------------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        # aiohttp itself closes a frame far beyond ours (1009); ours is refused in words
        ws = web.WebSocketResponse(max_msg_size=MAX_FRAME * 4, heartbeat=25.0)
        await ws.prepare(request)
        sock: Socket | None = None
        try:
            sock = await self._hello(ws)
            if sock is not None:
                await self._serve(sock)
        except Exception:  # never a traceback to the page: the socket just closes
            log.exception("web table socket")
        finally:
            if sock is not None:
                self._drop(sock)
            if not ws.closed:
                with contextlib.suppress(Exception):
                    await ws.close()
        return ws

    async def _refuse(
        self, ws: web.WebSocketResponse, t: Text, code: str, close: int | None = None, id_: Any = None
    ) -> None:
        await self._send(ws, {"type": "error", "code": code, "text": error_words(t, code), "id": id_})
        if close is not None and not ws.closed:
            await ws.close(code=close, message=code.encode())

    async def _hello(self, ws: web.WebSocketResponse) -> Socket | None:
        t = Text(self.local.lang if self.local else self.settings.default_language)
        try:
            msg = await asyncio.wait_for(ws.receive(), HELLO_SECONDS)
        except TimeoutError:
            await self._refuse(ws, t, "bad_frame", WSCloseCode.POLICY_VIOLATION)
            return None
        data = self._parse(msg)
        if isinstance(data, str) or data.get("type") != "hello":
            code = data if isinstance(data, str) else "bad_frame"
            await self._refuse(ws, t, code, WSCloseCode.MESSAGE_TOO_BIG if code == "too_big" else CLOSE_AUTH)
            return None
        try:
            person, room_id, lang = await self._who(data)
        except Refusal as r:
            await self._refuse(ws, t, r.code, CLOSE_NO_TABLE if r.code == "no_table" else CLOSE_AUTH)
            return None
        sock = Socket(ws, person.user, room_id, Text(lang))
        await self._send(ws, {"type": "words", "lang": lang, "words": page_words(sock.text)})
        # followed before it is read: a change committed meanwhile is sent after it
        self._sockets.add(sock)
        self.follows.setdefault(room_id, Follow()).sockets.add(sock)
        room = await self.service.room(room_id)
        if room is None:
            self._drop(sock)
            await self._refuse(ws, sock.text, "no_table", CLOSE_NO_TABLE)
            return None
        await self._push(room, [sock])  # the current state at once
        return sock

    async def _who(self, data: dict[str, Any]) -> tuple[Person, str, str]:
        """The person, the room and the table's language of a hello; ``Refusal`` if not."""
        if self.local is not None:
            person = local_person(self.local.token, data.get("local"), self.local.user)
            return person, self.local.room_id, self.local.lang
        token = self.settings.bot_token
        if not token:
            raise Refusal("auth")
        person = telegram_person(token, data.get("init"), self.settings.webapp_auth_seconds, self.wall())
        # the link Telegram signed (a startapp link) over the one the page read from its URL
        link = person.start_param or data.get("link")
        room = await self.service.room_by_link("tg", link) if isinstance(link, str) else None
        if room is None:
            raise Refusal("no_table")
        if room.seat_of(person.user.id) is None and not await self._may_watch(room, person.user):
            raise Refusal("not_member")
        return person, room.id, await self.chats.chat_language("tg", room.chat)

    async def _may_watch(self, room: Room, user: User) -> bool:
        """A spectator is a member of the table's group: a link carried out of the group
        shows its table to nobody else (without a way to ask Telegram, nobody watches)."""
        if self.member is None:
            return False
        try:
            return await self.member(int(room.chat), int(user.id.removeprefix("tg:")))
        except ValueError:
            return False

    def _drop(self, sock: Socket) -> None:
        self._sockets.discard(sock)
        follow = self.follows.get(sock.room_id)
        if follow is None:
            return
        follow.sockets.discard(sock)
        if not follow.sockets:
            if follow.task is not None:
                follow.task.cancel()
            del self.follows[sock.room_id]

    def _parse(self, msg: Any) -> dict[str, Any] | str:
        """A frame's JSON object, or the refusal's code."""
        if msg.type != WSMsgType.TEXT:
            return "bad_frame"
        if len(msg.data) > MAX_FRAME or len(msg.data.encode()) > MAX_FRAME:
            return "too_big"
        try:
            data = json.loads(msg.data)
        except ValueError:
            return "bad_frame"
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            return "bad_frame"
        return data

    def _flooding(self, sock: Socket) -> bool:
        now = self.monotonic()
        while sock.times and now - sock.times[0] > RATE_SECONDS:
            sock.times.popleft()
        sock.times.append(now)
        return len(sock.times) > RATE_FRAMES

    async def _serve(self, sock: Socket) -> None:
        ws = sock.ws
        while not ws.closed:
            msg = await ws.receive()
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                return
            self.counters.frames_in += 1
            if self._flooding(sock):
                await self._refuse(ws, sock.text, "flood", WSCloseCode.POLICY_VIOLATION)
                return
            data = self._parse(msg)
            if data == "too_big":
                await self._refuse(ws, sock.text, "too_big", WSCloseCode.MESSAGE_TOO_BIG)
                return
            if isinstance(data, str) or not await self._handle(sock, data):
                sock.bad += 1
                close = WSCloseCode.POLICY_VIOLATION if sock.bad >= BAD_FRAMES else None
                id_ = data.get("id") if isinstance(data, dict) else None
                await self._refuse(ws, sock.text, "bad_frame", close, id_ if isinstance(id_, str) else None)
                if close is not None:
                    return

    async def _handle(self, sock: Socket, data: dict[str, Any]) -> bool:
        """One frame of a known type with a valid id; False: refused, nothing done."""
        kind, fid = data["type"], data.get("id")
        if not isinstance(fid, str) or not FRAME_ID.fullmatch(fid):
            return False
        update = f"web:{sock.user.id}:{fid}"  # a frame sent again is applied once
        svc = self.service
        if kind == "act":
            token = data.get("token")
            if not isinstance(token, str) or not token or len(token) > MAX_TOKEN:
                return False
            out = await svc.act(token, sock.user, update_id=update, room_id=sock.room_id)
        elif kind == "back":
            out = await svc.come_back(sock.room_id, sock.user, update_id=update)
        elif kind == "again":
            out = await svc.rematch(sock.room_id, sock.user, update_id=update)
        elif kind == "agree":  # to end the match another player asked to end
            out = await svc.agree_to_end(sock.room_id, sock.user, update_id=update)
        elif kind == "give_up":
            out = await svc.give_up(sock.room_id, sock.user, update_id=update)
        elif kind == "hint":
            try:
                found = await svc.hint(sock.room_id, sock.user.id)
            except Refused as r:  # too many hints, or the pool is full
                await self._send(sock.ws, {"type": "hint", "id": fid, "text": sock.text.reason(r.reason)})
                return True
            if found is None:
                await self._send(sock.ws, {"type": "hint", "id": fid, "text": None})
            else:
                text = sock.text.hint_text(found)
                await self._send(sock.ws, {**frames.hint_frame(found.choice, text), "id": fid})
            return True
        else:
            return False
        answer: dict[str, Any] = {"type": "answer", "id": fid, "ok": out.ok, "text": None}
        if not out.ok:
            answer["text"] = sock.text.reason(out.reason)
        await self._send(sock.ws, answer)
        return True
