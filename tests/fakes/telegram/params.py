"""A Bot API call's parameters as the server reads them: the query string and a JSON,
urlencoded or multipart body (aiogram sends ``FormData``: strings as-is, everything else
JSON-encoded; uploaded files are ``attach://`` names)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from tests.fakes.telegram.model import Params

# Form fields that are plain strings even when they look like JSON ("123", "true", ...).
STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "quote",
        "quote_parse_mode",
        "callback_query_id",
        "data",
        "url",
        "title",
        "description",
        "short_description",
        "name",
        "emoji",
        "business_connection_id",
        "message_effect_id",
        "language_code",
        "inline_message_id",
        "secret_token",
        "ip_address",
        "custom_title",
        "question",
        "explanation",
        "first_name",
        "last_name",
        "phone_number",
        "address",
        "action",
        "next_offset",
    }
)


def decode_value(key: str, value: str) -> Any:
    if key in STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


async def read_params(request: web.Request, uploads: dict[str, bytes]) -> Params:
    """The parameters of ``request``; files uploaded with it are kept in ``uploads``."""
    params: Params = {key: decode_value(key, value) for key, value in request.query.items()}
    if not request.can_read_body:
        return params
    if request.content_type == "application/json":
        body = await request.json()
        if isinstance(body, dict):
            params.update(body)
        return params
    files: dict[str, bytes] = {}
    form = await request.post()
    for key, value in form.items():
        if isinstance(value, web.FileField):
            files[key] = value.file.read()
            continue
        params[key] = decode_value(key, str(value))
    for key, value in list(params.items()):
        if isinstance(value, str) and value.startswith("attach://"):
            name = value.removeprefix("attach://")
            if name in files:
                uploads[name] = files[name]
                params[key] = {"attach": name, "size": len(files[name])}
    return params
