"""The Discord adapter (discord.py 2.7): slash commands, a table message per room, hands in
ephemeral messages.

- ``app``: the client (``CommandTree``, default intents), ``run(settings, service)``;
- ``commands``: the slash commands and the ``app_commands.Translator`` over the catalogs;
- ``handlers``: what a button or a select does (service calls, ephemeral answers);
- ``views``: custom ids, the ``DynamicItem`` classes that parse them, the layouts drawn
  from the service's views (Components V2);
- ``painter``: the table message edited in place, deal and match summaries, open hands
  refreshed.

Rooms [decision]: one room per channel; a thread is a chat of its own (its id is the room's
chat), so ``room_id_for("dc", str(channel_id))`` either way and tokens stay short. The
chat's language belongs to the server (``chat_language("dc", guild_id)``; a DM channel's id
outside a server). Ephemeral texts follow the presser's own Discord locale.

Custom ids (≤ 100 characters, never a card):
- ``kz:t:<what>``: a table button (join, leave, bot, unbot, set, start, hand, again); the room
  is the channel the message is in;
- ``kz:a:<token>``: a move or a declaration, the service's action token (≤ 64 characters);
- ``kz:s:<token without its mask>``: a multi-card select; each option's value is one hand
  position's mask, the chosen values OR-ed give the move's mask;
- ``kz:h``: refresh my hand; ``kz:o:<option>``: a setting from /settings.
Every item is a ``DynamicItem``, so a restarted bot answers old buttons from Redis state.
"""
