"""What Discord's client does before it sends an interaction: whether the user may use the
command at all, the options and select values checked against their definitions, and the
users, channels and roles they name resolved."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tests.fakes.discord.model import FakeChannel, FakeDiscordError, FakeGuild, FakeUser
from tests.fakes.discord.payloads import channel_payload, member_payload, role_payload
from tests.fakes.discord.protocol import (
    ALL_PERMISSIONS,
    COMPONENT_CHANNEL_SELECT,
    COMPONENT_MENTIONABLE_SELECT,
    COMPONENT_ROLE_SELECT,
    COMPONENT_STRING_SELECT,
    COMPONENT_USER_SELECT,
)
from tests.fakes.discord.world import World


class Options:
    """The client's checks and the resolved data, over ``world``."""

    def __init__(self, world: World) -> None:
        self.world = world

    def check_command_allowed(self, cmd: dict[str, Any], user: FakeUser, guild: FakeGuild | None) -> None:
        contexts = cmd.get("contexts")
        if guild is None:
            if contexts is not None and 1 not in contexts:
                raise FakeDiscordError(f"/{cmd['name']} is not available in DMs (contexts={contexts})")
            if contexts is None and cmd.get("dm_permission") is False:
                raise FakeDiscordError(f"/{cmd['name']} has dm_permission=false")
            return
        if contexts is not None and 0 not in contexts:
            raise FakeDiscordError(f"/{cmd['name']} is not available in guilds (contexts={contexts})")
        required = cmd.get("default_member_permissions")
        if required is not None:
            need = int(required)
            have = self.world.member_permissions(guild, user)
            if have & need != need:
                raise FakeDiscordError(
                    f"/{cmd['name']} requires permissions {need:#x}; {user.username} has {have:#x}"
                )

    def build_options(
        self,
        options: Mapping[str, Any] | Sequence[dict[str, Any]] | None,
        definition: list[dict[str, Any]],
        sub_path: list[str],
        guild: FakeGuild | None,
        resolved: dict[str, Any],
        cmd: dict[str, Any] | None,
    ) -> list[dict[str, Any]]:
        # descend into subcommand groups / subcommands
        chain: list[tuple[str, int]] = []
        for part in sub_path:
            found = next((o for o in definition if o.get("name") == part and o.get("type") in (1, 2)), None)
            if found is None and cmd is not None:
                raise FakeDiscordError(f"/{cmd['name']} has no subcommand {part!r}")
            chain.append((part, found["type"] if found else 1))
            definition = list(found.get("options", [])) if found else []

        if options is None:
            leaf: list[dict[str, Any]] = []
        elif isinstance(options, Mapping):
            leaf = []
            for opt_name, value in options.items():
                spec = next((o for o in definition if o.get("name") == opt_name), None)
                if spec is None and cmd is not None:
                    raise FakeDiscordError(f"command has no option {opt_name!r}")
                otype = int(spec["type"]) if spec else guess_option_type(value)
                leaf.append(
                    {
                        "name": opt_name,
                        "type": otype,
                        "value": self.option_value(otype, value, guild, resolved),
                    }
                )
        else:
            leaf = [dict(o) for o in options]

        if cmd is not None and isinstance(options, Mapping | None):
            given = {o["name"] for o in leaf}
            missing = [o["name"] for o in definition if o.get("required") and o["name"] not in given]
            if missing:
                raise FakeDiscordError(f"missing required options {missing}")
            for o in leaf:
                spec = next((d for d in definition if d.get("name") == o["name"]), None)
                if spec and spec.get("choices") and o["value"] not in [c["value"] for c in spec["choices"]]:
                    raise FakeDiscordError(f"{o['value']!r} is not a choice of option {o['name']!r}")
                if spec:
                    check_option_range(spec, o["value"])

        for part, ptype in reversed(chain):
            leaf = [{"name": part, "type": ptype, "options": leaf}]
        return leaf

    def option_value(self, otype: int, value: Any, guild: FakeGuild | None, resolved: dict[str, Any]) -> Any:
        if otype in (6, 9) and isinstance(value, FakeUser | int) and not isinstance(value, bool):
            user = value if isinstance(value, FakeUser) else self.world.users.get(value)
            if user is not None:
                resolved.setdefault("users", {})[str(user.id)] = user.payload()
                if guild is not None and user.id in guild.member_ids:
                    member = member_payload(self.world, guild, user, with_permissions=True)
                    member.pop("user")
                    resolved.setdefault("members", {})[str(user.id)] = member
                return str(user.id)
        if otype == 7 and isinstance(value, FakeChannel | int) and not isinstance(value, bool):
            channel = value if isinstance(value, FakeChannel) else self.world.channels.get(value)
            if channel is not None:
                ch = channel_payload(self.world, channel)
                ch["permissions"] = str(ALL_PERMISSIONS)
                resolved.setdefault("channels", {})[str(channel.id)] = ch
                return str(channel.id)
        if isinstance(value, FakeUser | FakeChannel):
            return str(value.id)
        return value

    def check_select_values(self, comp: dict[str, Any], values: list[Any], ctype: int) -> None:
        lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
        if not lo <= len(values) <= hi:
            raise FakeDiscordError(
                f"select {comp.get('custom_id')!r} takes {lo}..{hi} values, got {len(values)}"
            )
        if ctype == COMPONENT_STRING_SELECT:
            allowed = {o["value"] for o in comp.get("options", [])}
            bad = [v for v in values if v not in allowed]
            if bad:
                raise FakeDiscordError(f"{bad} not among options {sorted(allowed)}")

    def resolve_select(self, ctype: int, values: list[Any], guild: FakeGuild | None) -> dict[str, Any]:
        resolved: dict[str, Any] = {}
        if ctype in (COMPONENT_USER_SELECT, COMPONENT_MENTIONABLE_SELECT):
            for v in values:
                self.option_value(6, v if isinstance(v, FakeUser) else int(v), guild, resolved)
        elif ctype == COMPONENT_CHANNEL_SELECT:
            for v in values:
                self.option_value(7, v if isinstance(v, FakeChannel) else int(v), guild, resolved)
        elif ctype == COMPONENT_ROLE_SELECT and guild is not None:
            for v in values:
                role = guild.roles.get(int(v))
                if role is not None:
                    resolved.setdefault("roles", {})[str(v)] = role_payload(guild, int(v), role)
        return resolved


def check_option_range(spec: dict[str, Any], value: Any) -> None:
    """What the Discord client enforces before it sends a command: a number within the
    option's ``min_value``/``max_value``, a string within ``min_length``/``max_length``."""
    name = spec.get("name")
    if isinstance(value, int | float) and not isinstance(value, bool):
        lo, hi = spec.get("min_value"), spec.get("max_value")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise FakeDiscordError(f"{value!r} is out of range for option {name!r} ({lo}..{hi})")
    elif isinstance(value, str):
        lo, hi = spec.get("min_length"), spec.get("max_length")
        if (lo is not None and len(value) < lo) or (hi is not None and len(value) > hi):
            raise FakeDiscordError(f"{value!r} is too short or long for option {name!r}")


def guess_option_type(value: Any) -> int:
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    if isinstance(value, FakeUser):
        return 6
    if isinstance(value, FakeChannel):
        return 7
    return 3
