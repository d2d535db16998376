"""The web table: the same views as the chats, drawn as a real card table in a browser.

Opened as a Telegram Mini App (``t.me/<bot>/<app>?startapp=<table link>`` from groups, a
``web_app`` button in a private chat) or on 127.0.0.1 for local play (``python -m bot play
--web``). aiohttp serves the page (plain ES modules, CSS and SVG from ``static/``, shipped
in the package) and one WebSocket per open table.

The protocol (JSON text frames, at most ``MAX_FRAME`` bytes in):

- in: ``hello`` (``init``: Telegram's signed initData, ``link``: the table's link; or
  ``local``: the local session's token) first; then ``act`` (``token``, ``id``), ``back``
  (I'm back), ``hint``, ``again`` (another match), each with an ``id`` the answer echoes;
- out: ``words`` (the page's words in the table's language, once), ``state`` (the public
  table, and to a seated person his own hand), ``answer`` (ok, or the reason in words),
  ``hint``, ``error`` (a refusal: the frame changed nothing; some close the socket).

A socket receives only what its person may see: the public table view (built from the
public observation only) and, for a seated person, the hand view of his own seat.
"""
