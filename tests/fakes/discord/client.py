"""discord.py against the fake: a client logged in, connected and ready with every server,
and stopped again."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tests.fakes.discord.model import FakeDiscordError
from tests.fakes.discord.protocol import HANG
from tests.fakes.discord.server import FakeDiscord

if TYPE_CHECKING:
    import discord


async def start_client(
    client: discord.Client,
    fake: FakeDiscord,
    token: str | None = None,
    *,
    timeout: float = HANG,
    reconnect: bool = True,
) -> asyncio.Task[None]:
    """``client.login`` + ``client.connect()`` as a background task; returns once on_ready
    fired and every guild of the fake is available in the client's cache.

    Requires ``fake.patch_discord_py()`` to be active.  Raises whatever connect() raised if
    it died first (e.g. ``discord.PrivilegedIntentsRequired``).
    """
    await client.login(token or fake.token)
    task = asyncio.create_task(client.connect(reconnect=reconnect), name="discord-client-connect")
    ready = asyncio.create_task(client.wait_until_ready())
    done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        ready.cancel()
        task.result()
        raise FakeDiscordError("client.connect() returned before READY")
    if ready not in done:
        ready.cancel()
        task.cancel()
        raise TimeoutError("discord.py client did not become ready")
    count = client.shard_count or 1
    shards = getattr(client, "shard_ids", None) or [client.shard_id or 0]
    for guild_id in fake.world.guilds:
        if (guild_id >> 22) % count not in shards:
            continue  # another shard's server
        guild = client.get_guild(guild_id)
        if guild is None or guild.unavailable:
            await client.wait_for(
                "guild_available", check=lambda g, gid=guild_id: g.id == gid, timeout=timeout
            )
    return task


async def stop_client(
    client: discord.Client, task: asyncio.Task[None] | None = None, *, timeout: float = HANG
) -> None:
    """``client.close()`` and wait for the connect task to finish (re-raising its error)."""
    await client.close()
    if task is not None:
        await asyncio.wait_for(task, timeout)
