"""A fake Discord (REST API + gateway websocket) for driving the *real* discord.py 2.7.

`FakeDiscord` is an aiohttp server on 127.0.0.1 that serves

* the REST API under ``http://127.0.0.1:PORT/api/v10`` (``fake.api_base``), and
* the gateway websocket at ``ws://127.0.0.1:PORT/gateway`` (``fake.gateway_url``).

Pointing discord.py at it (``fake.patch_discord_py()`` does exactly this and restores it):

* ``discord.http.Route.BASE = fake.api_base`` -- every REST call (including the interaction
  webhook adapter, which reuses ``Route``) builds its URL from this class attribute.
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)`` -- a plain
  ``Client.connect()`` in 2.7 does **not** call ``GET /gateway/bot``; it connects straight to
  ``DEFAULT_GATEWAY`` (only ``AutoShardedClient`` asks ``/gateway/bot``, which is served too).

discord.py behaviours the harness has to live with (all verified against 2.7.1):

* ``on_ready`` fires ``guild_ready_timeout`` seconds after the last GUILD_CREATE (default 2 s):
  build test clients with ``guild_ready_timeout=0.01``.
* Every non-initial IDENTIFY (after INVALID_SESSION) is preceded by
  ``Client.before_identify_hook``, which sleeps 5 s: override it in test clients.
* The heartbeat interval comes from HELLO; the fake sends 1 h, so the keep-alive thread only
  sends the immediate first beat.
* A 429 is only treated as a rate limit if the response has a ``Via`` header (else it is
  taken for a Cloudflare ban -> HTTPException); the fake sends ``Via``.  Responses must have
  ``Content-Type`` exactly ``application/json`` or the body is treated as text.
* discord.py sleeps ``1 + 2*try`` s on 500/502/504/524 before retrying: inject 503 or 4xx.
* The client acts on a response some time after the fake wrote it (e.g. it stores a
  non-persistent view under the new message id only then).  The fake can only say when it
  is *idle* (no REST request in flight: ``log.idle()``); that discord.py and the bot have done
  with a response is the bot's own signal to give (the adapter's ``Activity``, or a test
  bot's "answered" event). Nothing here counts event-loop turns or sleeps.

Limits, as the platform keeps them, on the fake's own clock (``clock=``, a callable
returning seconds; tests pass their manual clock so nothing waits in real time):

* rate limits per route bucket: five message posts per channel in five seconds, five
  message edits (or deletes) per channel in five seconds, five interaction-webhook calls
  per token in two seconds. A write past them gets a 429 whose ``retry_after`` is the time
  until the bucket has room (``fake.limits.limited`` records them). No ``X-RateLimit-*`` headers
  are sent, so discord.py never sleeps pre-emptively on its own clock;
* an interaction must be answered within 3 s (later: 404 Unknown interaction, 10062) and
  its token works for 15 minutes (later: 401 Invalid Webhook Token, 50027).

Payloads Discord refuses get its 400 ``{"code": 50035, "message": "Invalid Form Body",
"errors": {...}}``, the errors nested by the refused field's path (``components.0.
components.1.url``), as the Component Reference (developers/components/reference.mdx in
discord/discord-api-docs) sets the limits: content <= 2000, embeds, action rows, custom ids
1-100 and unique, buttons by style (a link button has a ``url`` <= 512 and no ``custom_id``,
a premium one a ``sku_id`` only, the others a ``custom_id`` and neither), labels <= 80,
selects (placeholder <= 150, min_values 0-25, max_values 1-25 and at most the options;
a string select's 1-25 options of unique values, label and value 1-100, description <= 100),
action rows (up to 5 buttons or one select, nothing else), and with IS_COMPONENTS_V2
(``1 << 15``): sections of 1-3 text displays and one accessory (a button or a thumbnail),
containers of the child types their page lists, 40 components in all (nested ones counted;
a container has no limit of its own), text displays of at most 4,000 characters together.
Error *codes* the docs don't name are the fake's own: match on the path, not on the code.

`start_client` / `stop_client` wrap login + connect + waiting for READY and the guilds.

Typical use::

    async with FakeDiscord() as fake:
        with fake.patch_discord_py():
            client = MyBot(intents=discord.Intents.default(), guild_ready_timeout=0.01)
            task = await start_client(client, fake)
            await client.tree.sync()
            inter = await fake.interaction_command(fake.alice, fake.channel, "ping")
            msg = await fake.wait_for_original(inter)
            assert msg.content == "pong" and msg.ephemeral
            await stop_client(client, task)

The package's parts, each with its own state: ``world`` (users, servers, channels,
interactions, commands; built and looked up), ``store`` (messages created, edited,
validated), ``limits`` (injected faults, rate limits), ``waiting`` (the calls made,
``wait_for``), ``gateway`` (the websocket's sessions and events; one socket in
``connection``), ``interactions`` (what the test's users do in Discord's client, checked by
``options``); the REST handlers in ``responders`` (the bot's channels, messages, threads,
servers) and ``application`` (its commands, interaction answers, webhooks) behind the
plumbing of ``rest``; the JSON in ``payloads``, the refused payloads in ``validation``,
Discord's numbers in ``protocol``. ``server`` composes them (``FakeDiscord``), ``client``
starts discord.py against it.
"""

from tests.fakes.discord.client import start_client, stop_client
from tests.fakes.discord.connection import GatewayConnection
from tests.fakes.discord.model import (
    FakeChannel,
    FakeDiscordError,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    RecordedCall,
    walk_components,
)
from tests.fakes.discord.protocol import (
    ALL_PERMISSIONS,
    DEFAULT_MEMBER_PERMISSIONS,
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    FLAG_LOADING,
    HANG,
    PERM_ADMINISTRATOR,
    PERM_MANAGE_GUILD,
    PERM_SEND_MESSAGES,
)
from tests.fakes.discord.server import FakeDiscord

__all__ = [
    "ALL_PERMISSIONS",
    "DEFAULT_MEMBER_PERMISSIONS",
    "FLAG_EPHEMERAL",
    "FLAG_IS_COMPONENTS_V2",
    "FLAG_LOADING",
    "HANG",
    "PERM_ADMINISTRATOR",
    "PERM_MANAGE_GUILD",
    "PERM_SEND_MESSAGES",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordError",
    "FakeGuild",
    "FakeInteraction",
    "FakeMessage",
    "FakeUser",
    "GatewayConnection",
    "RecordedCall",
    "start_client",
    "stop_client",
    "walk_components",
]
