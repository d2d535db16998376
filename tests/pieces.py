"""The service's pieces a test reaches, as the composition root builds them
(``bot.service.Services``): one set a service, so a test and the adapter it drives share
them (the paint leases' worker id)."""

from __future__ import annotations

import weakref

from bot.service import GameService, Services

_BUILT: weakref.WeakKeyDictionary[GameService, Services] = weakref.WeakKeyDictionary()


def pieces(service: GameService) -> Services:
    found = _BUILT.get(service)
    if found is None:
        found = _BUILT[service] = Services.on(service)
    return found
