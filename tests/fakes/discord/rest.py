"""The REST side's plumbing: a request recorded and read (JSON or multipart), refused by the
limits or routed to its handler, and answered as discord.py needs it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.fakes.discord.limits import Fault, Limits
from tests.fakes.discord.model import (
    FakeChannel,
    FakeGuild,
    FakeMessage,
    HTTPError,
    RecordedCall,
    int_or_zero,
    route_regex,
    unknown,
)
from tests.fakes.discord.waiting import CallLog
from tests.fakes.discord.world import World

Handler = Callable[["Request"], Any]
#: (method, route template, handler, whether it takes the bot's token)
Route = tuple[str, str, Handler, bool]


@dataclass
class Request:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: list[dict[str, Any]]
    call: RecordedCall


class Rest:
    """Serves ``/api/v10/...``: every request recorded in ``log``, answered by ``limits`` or
    by the first of ``routes`` that matches (401 without the bot's ``token`` where needed)."""

    def __init__(
        self, log: CallLog, limits: Limits, routes: list[Route], *, token: str, clock: Callable[[], float]
    ) -> None:
        self.log = log
        self.limits = limits
        self.token = token
        self.clock = clock
        self._routes = [
            (method, route_regex(template), handle, auth) for method, template, handle, auth in routes
        ]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        # Waiters are woken only once the response bytes are on the socket, so a test never
        # acts on state whose HTTP response discord.py has not even received yet.
        self.log.inflight += 1
        try:
            response = await self._route_rest(request)
            await response.prepare(request)
            await response.write_eof()
            return response
        finally:
            self.log.inflight -= 1
            self.log.changed()

    async def _route_rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        method = request.method.upper()
        call = RecordedCall(
            index=len(self.log.calls),
            method=method,
            path=path,
            query=dict(request.query),
            json=None,
            authorized=request.headers.get("Authorization") == f"Bot {self.token}",
            at=self.clock(),
        )
        self.log.calls.append(call)
        files: list[dict[str, Any]] = []
        try:
            ctype = request.headers.get("Content-Type", "")
            if ctype.startswith("multipart/"):
                form = await request.post()
                for key, value in form.items():
                    if key == "payload_json":
                        call.json = json.loads(str(value))
                    elif isinstance(value, web.FileField):
                        files.append(
                            {
                                "field": key,
                                "filename": value.filename,
                                "content_type": value.content_type,
                                "data": value.file.read(),
                            }
                        )
                call.files = [{k: v for k, v in f.items() if k != "data"} for f in files]
            elif request.can_read_body:
                raw = await request.read()
                if raw:
                    call.json = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return self._finish(call, 400, {"message": "400: Bad Request", "code": 50109})

        fault = self.limits.refusal(call)
        if fault is not None:
            return self._fault_response(call, fault)

        for route_method, pattern, handler, auth in self._routes:
            match = pattern.fullmatch(path)
            if route_method != method or match is None:
                continue
            if auth and not call.authorized:
                return self._finish(call, 401, {"message": "401: Unauthorized", "code": 0})
            req = Request(method, path, match.groupdict(), dict(request.query), call.json, files, call)
            try:
                result = await handler(req)
            except HTTPError as exc:
                return self._finish(call, exc.status, exc.body)
            if result is None:
                return self._finish(call, 204, None)
            status, body = result if isinstance(result, tuple) else (200, result)
            return self._finish(call, status, body)
        return self._finish(call, 404, {"message": "404: Not Found", "code": 0})

    def _finish(
        self,
        call: RecordedCall,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
    ) -> web.Response:
        call.status = status
        call.response = body
        self.log.changed()
        if body is None:
            return web.Response(status=status, headers=headers)
        # exactly "application/json": discord.py's json_or_text() compares the header verbatim
        # and treats "application/json; charset=utf-8" (aiohttp's default) as plain text
        return web.Response(
            body=json.dumps(body).encode(),
            status=status,
            headers={**(headers or {}), "Content-Type": "application/json"},
        )

    def _fault_response(self, call: RecordedCall, fault: Fault) -> web.Response:
        if fault.status == 429:
            body = {
                "message": fault.message,
                "retry_after": fault.retry_after,
                "global": fault.is_global,
                "code": 0,
            }
            headers = {
                "Via": "1.1 google",  # discord.py treats a 429 without Via as a Cloudflare ban
                "Retry-After": str(max(1, int(fault.retry_after + 0.999))),
                "X-RateLimit-Scope": "global" if fault.is_global else "user",
            }
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            return self._finish(call, 429, body, headers)
        return self._finish(call, fault.status, {"message": fault.message, "code": fault.code})


def channel_of(world: World, req: Request) -> FakeChannel:
    """The request's ``{channel_id}``, or 404 Unknown Channel."""
    channel = world.channels.get(int(req.params["channel_id"]))
    if channel is None:
        raise unknown("Channel", 10003)
    return channel


def guild_of_request(world: World, req: Request) -> FakeGuild:
    """The request's ``{guild_id}``, or 404 Unknown Guild."""
    guild = world.guilds.get(int(req.params["guild_id"]))
    if guild is None:
        raise unknown("Guild", 10004)
    return guild


def channel_message(world: World, req: Request) -> FakeMessage:
    """The request's ``{message_id}`` in its channel, or 404 Unknown Message."""
    msg = world.messages.get(int_or_zero(req.params["message_id"]))
    # ephemeral messages are invisible to the channel endpoints
    if msg is None or msg.deleted or msg.ephemeral or msg.channel_id != int(req.params["channel_id"]):
        raise unknown("Message", 10008)
    return msg
