"""What the test's users do through Discord's client: a slash command, a click on a button
or a pick in a select, a filled-in modal - delivered as INTERACTION_CREATE, after the checks
the client itself makes (registered, allowed, valid choices and values)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.fakes.discord.gateway import Gateway
from tests.fakes.discord.model import (
    FakeChannel,
    FakeDiscordError,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    walk_components,
)
from tests.fakes.discord.options import Options
from tests.fakes.discord.payloads import channel_payload, member_payload, message_payload
from tests.fakes.discord.protocol import (
    COMPONENT_ACTION_ROW,
    COMPONENT_BUTTON,
    COMPONENT_LABEL,
    COMPONENT_STRING_SELECT,
    COMPONENT_TEXT_INPUT,
    DEFAULT_BOT_PERMISSIONS,
    INTERACTION_APPLICATION_COMMAND,
    INTERACTION_MESSAGE_COMPONENT,
    INTERACTION_MODAL_SUBMIT,
    SELECT_TYPES,
)
from tests.fakes.discord.waiting import CallLog
from tests.fakes.discord.world import World


class Interactions:
    """Interactions of the test's users in ``world``, sent through ``gateway``; ``clock``
    stamps each (the answer window and the token's life run from it)."""

    def __init__(self, world: World, log: CallLog, gateway: Gateway, clock: Callable[[], float]) -> None:
        self.world = world
        self.log = log
        self.gateway = gateway
        self.clock = clock
        self.options = Options(world)

    async def interaction_command(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        options: Mapping[str, Any] | Sequence[dict[str, Any]] | None = None,
        *,
        resolved: dict[str, Any] | None = None,
        check_registered: bool = True,
    ) -> FakeInteraction:
        """Deliver an APPLICATION_COMMAND (type 2) INTERACTION_CREATE for ``/name``.

        ``name`` may include subcommands: ``"kozel start"``.  ``options`` is either a mapping
        ``{option_name: value}`` (types are taken from the registered command; FakeUser /
        FakeChannel values become ids with ``resolved`` data) or a raw Discord options list.
        With ``check_registered`` (default) the command must have been synced, and Discord's
        client-side rules are applied: ``default_member_permissions`` hides the command from
        members lacking them, ``contexts`` gate DM usage, and a value must be one of the
        option's choices and within its min/max (FakeDiscordError is raised).
        """
        parts = name.split()
        root, sub_path = parts[0], parts[1:]
        guild = self.world.guilds.get(channel.guild_id) if channel.guild_id else None
        cmd = self.world.command(root, guild)
        data: dict[str, Any] = {"name": root, "type": 1}
        if cmd is None:
            if check_registered:
                raise FakeDiscordError(f"/{root} is not registered (did the bot run tree.sync()?)")
            data["id"] = str(self.world.ids.next())
        else:
            data["id"] = cmd["id"]
            if cmd.get("guild_id"):
                data["guild_id"] = cmd["guild_id"]
            if check_registered:
                self.options.check_command_allowed(cmd, user, guild)

        resolved_data: dict[str, Any] = dict(resolved or {})
        definition: list[dict[str, Any]] = list(cmd.get("options", [])) if cmd else []
        leaf_options = self.options.build_options(options, definition, sub_path, guild, resolved_data, cmd)
        if leaf_options:
            data["options"] = leaf_options
        if resolved_data:
            data["resolved"] = resolved_data
        return await self._deliver_interaction(INTERACTION_APPLICATION_COMMAND, user, channel, data)

    async def interaction_component(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        values: Sequence[Any] | None = None,
        *,
        check_component: bool = True,
    ) -> FakeInteraction:
        """Deliver a MESSAGE_COMPONENT (type 3) interaction: ``user`` clicks the button /
        picks ``values`` in the select with ``custom_id`` on ``message``.

        Checks what the Discord client enforces: the component exists and is enabled, the
        user can see the message (ephemerals only by their recipient), and select values are
        valid options within min/max.  ``values`` for user/channel selects may be FakeUser /
        FakeChannel objects or ids.
        """
        if isinstance(values, str):
            raise TypeError("values must be a list of option values, not a str")
        msg = self.world.messages[message] if isinstance(message, int) else message
        if msg.deleted:
            raise FakeDiscordError(f"message {msg.id} was deleted")
        if not msg.visible_to(user):
            raise FakeDiscordError(f"{user.username} cannot see ephemeral message {msg.id}")
        comp = msg.component(custom_id)
        if comp is None:
            if check_component:
                raise FakeDiscordError(
                    f"no component {custom_id!r} on message {msg.id}; has {msg.custom_ids()}"
                )
            comp = {"type": COMPONENT_BUTTON if values is None else COMPONENT_STRING_SELECT}
        if check_component and comp.get("disabled"):
            raise FakeDiscordError(f"component {custom_id!r} is disabled")
        ctype = int(comp["type"])
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if ctype in SELECT_TYPES:
            raw_values = list(values or [])
            if check_component:
                self.options.check_select_values(comp, raw_values, ctype)
            data["values"] = [
                str(v.id) if isinstance(v, FakeUser | FakeChannel) else str(v) for v in raw_values
            ]
            resolved = self.options.resolve_select(
                ctype, raw_values, self.world.guilds.get(msg.guild_id or 0)
            )
            if resolved:
                data["resolved"] = resolved
        elif values is not None:
            raise FakeDiscordError(f"component {custom_id!r} is a button; values make no sense")
        channel = self.world.channels.get(msg.channel_id) or FakeChannel(
            msg.channel_id, "unknown", guild_id=msg.guild_id
        )
        return await self._deliver_interaction(
            INTERACTION_MESSAGE_COMPONENT, user, channel, data, message=msg
        )

    async def interaction_modal_submit(
        self,
        user: FakeUser,
        opened_by: FakeInteraction,
        values: Mapping[str, str | Sequence[str]],
    ) -> FakeInteraction:
        """Submit the modal the bot opened (type 9 callback) in response to ``opened_by``.

        ``values`` maps text-input custom_ids to strings (select custom_ids to lists).
        """
        modal = opened_by.modal
        if modal is None:
            raise FakeDiscordError(f"interaction {opened_by.id} did not open a modal")

        def fill(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            for comp in components:
                ctype = comp.get("type")
                if ctype == COMPONENT_ACTION_ROW:
                    out.append({"type": 1, "components": fill(comp.get("components", []))})
                elif ctype == COMPONENT_LABEL and isinstance(comp.get("component"), dict):
                    inner = fill([comp["component"]])
                    if inner:
                        out.append({"type": COMPONENT_LABEL, "component": inner[0]})
                elif "custom_id" in comp:
                    cid = comp["custom_id"]
                    entry: dict[str, Any] = {"type": ctype, "custom_id": cid}
                    if "id" in comp:
                        entry["id"] = comp["id"]
                    val = values.get(cid)
                    if ctype == COMPONENT_TEXT_INPUT:
                        entry["value"] = "" if val is None else str(val)
                    else:
                        entry["values"] = [] if val is None else [str(v) for v in val]
                    out.append(entry)
            return out

        unknown = set(values) - {c.get("custom_id") for c in walk_components(modal.get("components", []))}
        if unknown:
            raise FakeDiscordError(f"modal has no inputs {sorted(unknown)}")
        data = {"custom_id": modal["custom_id"], "components": fill(modal.get("components", []))}
        channel = self.world.channels.get(opened_by.channel_id) or FakeChannel(
            opened_by.channel_id, "unknown"
        )
        source = self.world.messages.get(opened_by.source_message_id or 0)
        return await self._deliver_interaction(INTERACTION_MODAL_SUBMIT, user, channel, data, message=source)

    async def _deliver_interaction(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
    ) -> FakeInteraction:
        await self.log.idle()
        conn = self.gateway.live_connection(channel.guild_id)
        if conn is None:
            raise FakeDiscordError("no identified gateway session; is the client connected?")
        iid = self.world.ids.next()
        token = f"aW50ZXJhY3Rpb24.{iid}.{secrets.token_hex(16)}"
        guild = self.world.guilds.get(channel.guild_id) if channel.guild_id else None
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.world.application_id),
            "type": itype,
            "data": data,
            "token": token,
            "version": 1,
            "channel_id": str(channel.id),
            "channel": channel_payload(self.world, channel),
            "locale": user.locale,
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild is not None:
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=member_payload(self.world, guild, user, with_permissions=True),
                app_permissions=str(self.world.member_permissions(guild, self.world.bot)),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=user.payload(),
                app_permissions=str(DEFAULT_BOT_PERMISSIONS),
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        if message is not None:
            payload["message"] = message_payload(self.world, message)
        inter = FakeInteraction(
            id=iid,
            token=token,
            type=itype,
            user=user,
            channel_id=channel.id,
            guild_id=guild.id if guild else None,
            data=data,
            payload=payload,
            source_message_id=message.id if message else None,
            created=self.clock(),
        )
        self.world.interactions[iid] = inter
        self.world.interactions_by_token[token] = inter
        await self.gateway.send_dispatch(conn, "INTERACTION_CREATE", payload)
        return inter
