"""What the command modules register their bodies with: ``Served``, the decorator
``commands._served`` makes (``community``, ``history`` and ``tournament`` take it as an
argument, so they need not import ``commands``, which imports them)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol

import discord

Interaction = discord.Interaction[discord.Client]

P = ParamSpec("P")
#: a command's body: the interaction, then its options
Body = Callable[Concatenate[Interaction, P], Coroutine[Any, Any, None]]


class Served(Protocol):
    """The decorator ``commands._served`` makes: a command's body kept with its signature
    (discord.py reads the options from it), run inside ``Handlers.handling``."""

    def __call__(self, func: Body[P], /) -> Body[P]: ...
