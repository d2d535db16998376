"""The Discord adapter (discord.py 2.7): slash commands, a table message per room, hands in
ephemeral messages.

- ``app``: the client (an ``AutoShardedClient``: every shard Discord asks for, in one
  process; split across processes with ``shard_ids``), ``run(settings, service, stop)``;
- ``commands``: the slash commands and the ``app_commands.Translator`` over the catalogs;
- ``handlers``: what a button or a select does (service calls, answers to interactions);
- ``views``: custom ids, the ``DynamicItem`` classes that parse them, the layouts drawn
  from the service's views (Components V2); ``texts``: their words;
- ``painter``: the table message edited in place (paced per channel), deal and match
  summaries, open hands refreshed (each on its own);
- ``live``: each person's one live hand, kept in Redis (the token that edits it);
- ``activity``: what the process is doing (shutdown waits for it, tests wait on it).

Rooms [decision]: one room per channel; a thread is a chat of its own (its id is the room's
chat), so ``room_id_for("dc", str(channel_id))`` either way and tokens stay short. The
chat's language belongs to the server (``chat_language("dc", guild_id)``, else the server's
own locale); ephemeral texts follow the presser's own Discord locale.

Custom ids (≤ 100 characters, never a card):
- ``kz:t:<what>``: a table button (join, leave, bot, unbot, seats, set, start, hand, again,
  wait); the room is the channel the message is in;
- ``kz:a:<token>``: a move or a declaration, the service's action token (≤ 64 characters);
- ``kz:s:<token without its mask>``: a multi-card select; each option's value is one hand
  position's mask (or a whole combination's), the chosen values OR-ed give the move's mask;
- ``kz:h``: refresh my hand; ``kz:n``: a hint (practice games); ``kz:b``: I'm back;
- ``kz:o:<option>``: a setting from /settings (``size``, ``bot_level``, a rule) or the seats
  panel (``seat``: move to a free seat, ``swap``: two seats; values ``a-b``).
Every item is a ``DynamicItem``, so any process, restarted or not, answers it from Redis.
"""
