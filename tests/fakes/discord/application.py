"""The REST routes of the bot as an application: its commands (registered, listed, deleted),
its answers to interactions (the callback, within 3 s) and its follow-ups and edits through
the interaction's webhook (its token lives 15 minutes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.fakes.discord.gateway import Gateway
from tests.fakes.discord.model import (
    FakeInteraction,
    FakeMessage,
    HTTPError,
    form_error,
    int_or_zero,
    unknown,
)
from tests.fakes.discord.payloads import message_payload
from tests.fakes.discord.protocol import (
    ANSWER_WINDOW,
    CALLBACK_AUTOCOMPLETE_RESULT,
    CALLBACK_CHANNEL_MESSAGE,
    CALLBACK_DEFERRED_CHANNEL_MESSAGE,
    CALLBACK_DEFERRED_UPDATE_MESSAGE,
    CALLBACK_MODAL,
    CALLBACK_UPDATE_MESSAGE,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    INTERACTION_APPLICATION_COMMAND,
    INTERACTION_AUTOCOMPLETE,
    INTERACTION_MESSAGE_COMPONENT,
    INTERACTION_MODAL_SUBMIT,
    TOKEN_LIFE,
)
from tests.fakes.discord.rest import Request, Route, guild_of_request
from tests.fakes.discord.store import MessageStore
from tests.fakes.discord.validation import validate_command
from tests.fakes.discord.world import World


class Application:
    """The handlers of the application's REST calls on ``world``; ``clock`` times the answers."""

    def __init__(
        self, world: World, store: MessageStore, gateway: Gateway, clock: Callable[[], float]
    ) -> None:
        self.world = world
        self.store = store
        self.gateway = gateway
        self.clock = clock

    def routes(self) -> list[Route]:
        return [
            ("GET", "/oauth2/applications/@me", self._get_application, True),
            ("GET", "/applications/@me", self._get_application, True),
            ("GET", "/applications/{app_id}/commands", self._get_commands, True),
            ("PUT", "/applications/{app_id}/commands", self._put_commands, True),
            ("POST", "/applications/{app_id}/commands", self._post_command, True),
            ("DELETE", "/applications/{app_id}/commands/{command_id}", self._delete_command, True),
            ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self._get_commands, True),
            ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self._put_commands, True),
            ("POST", "/applications/{app_id}/guilds/{guild_id}/commands", self._post_command, True),
            (
                "DELETE",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self._delete_command,
                True,
            ),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._interaction_callback, False),
            ("POST", "/webhooks/{app_id}/{token}", self._webhook_execute, False),
            ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", self._webhook_get, False),
            ("PATCH", "/webhooks/{app_id}/{token}/messages/{message_id}", self._webhook_edit, False),
            ("DELETE", "/webhooks/{app_id}/{token}/messages/{message_id}", self._webhook_delete, False),
        ]

    def _check_app(self, req: Request) -> None:
        if req.params.get("app_id") != str(self.world.application_id):
            raise HTTPError(403, 50001, "Missing Access")

    async def _get_application(self, req: Request) -> Any:
        return {
            "id": str(self.world.application_id),
            "name": self.world.bot.username,
            "icon": None,
            "description": "",
            "summary": "",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "bot": self.world.bot.payload(),
            "owner": self.world.app_owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "approximate_guild_count": len(self.world.guilds),
            "tags": [],
            "integration_types_config": {"0": {}},
        }

    # ------------------------------------------------------------------ commands
    def _command_pool(self, req: Request) -> tuple[list[dict[str, Any]], int | None]:
        self._check_app(req)
        if "guild_id" in req.params:
            guild = guild_of_request(self.world, req)
            return self.world.guild_commands.setdefault(guild.id, []), guild.id
        return self.world.global_commands, None

    def _normalise_command(
        self, body: dict[str, Any], guild_id: int | None, existing: list[dict[str, Any]], index: int
    ) -> dict[str, Any]:
        ctype = int(body.get("type", 1))
        name = str(body.get("name", ""))
        if self.world.validate:
            validate_command(body, index)
        old = next((c for c in existing if c["name"] == name and c.get("type", 1) == ctype), None)
        cmd = {
            "id": old["id"] if old else str(self.world.ids.next()),
            "application_id": str(self.world.application_id),
            "version": str(self.world.ids.next()),
            "type": ctype,
            "name": name,
            "description": body.get("description", "") if ctype == 1 else "",
            "options": body.get("options") or [],
            "default_member_permissions": body.get("default_member_permissions"),
            "dm_permission": body.get("dm_permission", True),
            "nsfw": bool(body.get("nsfw", False)),
            "name_localizations": body.get("name_localizations"),
            "description_localizations": body.get("description_localizations"),
            "contexts": body.get("contexts"),
            "integration_types": body.get("integration_types") or [0],
        }
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        return cmd

    async def _get_commands(self, req: Request) -> Any:
        pool, _ = self._command_pool(req)
        return pool

    async def _put_commands(self, req: Request) -> Any:
        pool, guild_id = self._command_pool(req)
        bodies = req.json or []
        if not isinstance(bodies, list):
            raise HTTPError(400, 50035, "Invalid Form Body")
        if len(bodies) > 100:
            raise form_error("_errors", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
        seen: set[tuple[str, int]] = set()
        new = []
        for i, body in enumerate(bodies):
            key = (str(body.get("name")), int(body.get("type", 1)))
            if key in seen:
                raise form_error(
                    f"{i}.name",
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    f"Application command names must be unique: {key[0]}",
                )
            seen.add(key)
            new.append(self._normalise_command(body, guild_id, pool, i))
        pool[:] = new
        self.world.changed()
        return new

    async def _post_command(self, req: Request) -> Any:
        pool, guild_id = self._command_pool(req)
        cmd = self._normalise_command(dict(req.json or {}), guild_id, pool, 0)
        existed = any(c["id"] == cmd["id"] for c in pool)
        pool[:] = [c for c in pool if c["id"] != cmd["id"]] + [cmd]
        return (200 if existed else 201), cmd

    async def _delete_command(self, req: Request) -> Any:
        pool, _ = self._command_pool(req)
        before = len(pool)
        pool[:] = [c for c in pool if c["id"] != req.params["command_id"]]
        if len(pool) == before:
            raise unknown("application command", 10063)
        return None

    # ------------------------------------------------------------------ interactions
    def _interaction_for_token(self, req: Request) -> FakeInteraction:
        self._check_webhook_app(req)
        inter = self.world.interactions_by_token.get(req.params["token"])
        if inter is None:
            raise unknown("Webhook", 10015)
        if self.clock() - inter.created > TOKEN_LIFE:
            raise HTTPError(401, 50027, "Invalid Webhook Token")
        return inter

    def _check_webhook_app(self, req: Request) -> None:
        if req.params.get("app_id") != str(self.world.application_id):
            raise unknown("Webhook", 10015)

    async def _interaction_callback(self, req: Request) -> Any:
        inter = self.world.interactions.get(int_or_zero(req.params["interaction_id"]))
        if inter is None or inter.token != req.params["token"]:
            raise unknown("interaction", 10062)
        if self.clock() - inter.created > ANSWER_WINDOW:
            raise unknown("interaction", 10062)  # Discord: answered too late
        body = dict(req.json or {})
        inter.callbacks.append(body)
        self.world.changed()
        if inter.responded:
            raise HTTPError(400, 40060, "Interaction has already been acknowledged.")
        ctype = int(body.get("type", 0))
        data = dict(body.get("data") or {})
        allowed = {
            INTERACTION_APPLICATION_COMMAND: {4, 5, 9},
            INTERACTION_MESSAGE_COMPONENT: {4, 5, 6, 7, 9},
            INTERACTION_AUTOCOMPLETE: {8},
            INTERACTION_MODAL_SUBMIT: {4, 5, 6, 7} if inter.source_message_id else {4, 5},
        }.get(inter.type, set())
        if ctype not in allowed:
            raise form_error(
                "type",
                "INTERACTION_CALLBACK_TYPE_INVALID",
                f"Callback type {ctype} is invalid for interaction type {inter.type}",
            )

        resource = self._apply_callback(inter, ctype, data, req.files)
        inter.response_type = ctype
        inter.response_data = data
        self.world.changed()
        original = self.world.messages.get(inter.original_message_id or 0)
        if original is not None and ctype in (
            CALLBACK_CHANNEL_MESSAGE,
            CALLBACK_DEFERRED_CHANNEL_MESSAGE,
        ):
            await self.gateway.echo_message("MESSAGE_CREATE", original)
        elif original is not None and ctype == CALLBACK_UPDATE_MESSAGE:
            await self.gateway.echo_message("MESSAGE_UPDATE", original)

        info: dict[str, Any] = {"id": str(inter.id), "type": inter.type}
        if original is not None and ctype in (4, 5, 7):
            info["response_message_id"] = str(original.id)
            info["response_message_loading"] = original.loading
            info["response_message_ephemeral"] = original.ephemeral
        result: dict[str, Any] = {"interaction": info}
        if resource is not None:
            result["resource"] = resource
        return result

    def _apply_callback(
        self, inter: FakeInteraction, ctype: int, data: dict[str, Any], files: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """What an accepted answer does (a message, a thinking message, an edit of the
        component's message...); the callback's ``resource`` when it made or edited one."""
        resource: dict[str, Any] | None = None
        msg_type = 20 if inter.type == INTERACTION_APPLICATION_COMMAND else 0
        if ctype == CALLBACK_CHANNEL_MESSAGE:
            flags = int(data.get("flags") or 0)
            msg = self.store.build_validated(
                inter.channel_id,
                self.world.bot,
                data,
                files,
                interaction=inter,
                msg_type=msg_type,
                flags=flags,
            )
            inter.original_message_id = msg.id
            resource = {"type": ctype, "message": message_payload(self.world, msg)}
        elif ctype == CALLBACK_DEFERRED_CHANNEL_MESSAGE:
            flags = FLAG_LOADING | (int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            msg = self.store.create_message(
                inter.channel_id, self.world.bot, {}, interaction=inter, msg_type=msg_type, flags=flags
            )
            inter.original_message_id = msg.id
            resource = {"type": ctype, "message": message_payload(self.world, msg)}
        elif ctype in (CALLBACK_DEFERRED_UPDATE_MESSAGE, CALLBACK_UPDATE_MESSAGE):
            source = self.world.messages.get(inter.source_message_id or 0)
            if source is None or source.deleted:
                raise unknown("Message", 10008)
            if ctype == CALLBACK_UPDATE_MESSAGE:
                self.store.edit_message(source, data, files)
                resource = {"type": ctype, "message": message_payload(self.world, source)}
            inter.original_message_id = source.id
        elif ctype == CALLBACK_AUTOCOMPLETE_RESULT:
            inter.choices = list(data.get("choices") or [])
        elif ctype == CALLBACK_MODAL:
            if not data.get("custom_id") or not data.get("title"):
                raise form_error("data", "BASE_TYPE_REQUIRED", "custom_id and title are required")
            inter.modal = data
        return resource

    async def _webhook_execute(self, req: Request) -> Any:
        inter = self._interaction_for_token(req)
        if not inter.responded:
            raise unknown("Webhook", 10015)
        body = dict(req.json or {})
        original = self.world.original_message(inter)
        if (
            inter.response_type == CALLBACK_DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and original.loading
        ):
            # Discord: the first follow-up after a "thinking" defer fills in that message,
            # keeping the defer's ephemerality (flags 64 on the follow-up is ignored).
            self.store.edit_message(original, body, req.files)
            msg = original
            inter.followup_ids.append(msg.id)
            await self.gateway.echo_message("MESSAGE_UPDATE", msg)
        else:
            flags = int(body.get("flags") or 0)
            msg = self.store.build_validated(
                inter.channel_id, self.world.bot, body, req.files, interaction=inter, flags=flags
            )
            if msg.interaction_metadata is not None and inter.original_message_id is not None:
                msg.interaction_metadata["original_response_message_id"] = str(inter.original_message_id)
            inter.followup_ids.append(msg.id)
            self.world.changed()
            await self.gateway.echo_message("MESSAGE_CREATE", msg)
        if req.query.get("wait", "0").lower() in ("0", "false"):
            return None
        return message_payload(self.world, msg)

    def _webhook_message(self, req: Request, inter: FakeInteraction) -> FakeMessage:
        mid = req.params["message_id"]
        target = inter.original_message_id if mid == "@original" else int_or_zero(mid)
        msg = self.world.messages.get(target or 0)
        owned = target == inter.original_message_id or target in inter.followup_ids
        if msg is None or msg.deleted or not owned:
            raise unknown("Message", 10008)
        return msg

    async def _webhook_get(self, req: Request) -> Any:
        inter = self._interaction_for_token(req)
        return message_payload(self.world, self._webhook_message(req, inter))

    async def _webhook_edit(self, req: Request) -> Any:
        inter = self._interaction_for_token(req)
        msg = self._webhook_message(req, inter)
        self.store.edit_message(msg, dict(req.json or {}), req.files)
        await self.gateway.echo_message("MESSAGE_UPDATE", msg)
        return message_payload(self.world, msg)

    async def _webhook_delete(self, req: Request) -> Any:
        inter = self._interaction_for_token(req)
        await self.gateway.delete(self._webhook_message(req, inter))
        return None
