"""What Discord refuses in what the bot sends, as pure checks: each raises the 400 Discord
answers (``{"code": 50035, "message": "Invalid Form Body", "errors": {...}}``, the errors
nested by the refused field's path) - see the package docstring for the limits."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tests.fakes.discord.model import FakeMessage, HTTPError, form_error, walk_components
from tests.fakes.discord.protocol import (
    BUTTON_LINK,
    BUTTON_PREMIUM,
    BUTTON_STYLES,
    COMPONENT_ACTION_ROW,
    COMPONENT_BUTTON,
    COMPONENT_CONTAINER,
    COMPONENT_SECTION,
    COMPONENT_STRING_SELECT,
    COMPONENT_TEXT_DISPLAY,
    COMPONENT_THUMBNAIL,
    CONTAINER_CHILD_TYPES,
    INTERACTIVE_TYPES,
    SELECT_TYPES,
    V2_TOP_LEVEL_TYPES,
)

COMMAND_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


def validate_message(msg: FakeMessage) -> None:
    """A message as it would be stored: content, embeds and components within limits."""
    v2 = msg.is_components_v2
    if len(msg.content) > 2000:
        raise form_error("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
    if v2 and (msg.content or msg.embeds):
        raise form_error(
            "content" if msg.content else "embeds",
            "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
            "The 'content' and 'embeds' fields cannot be used when using MessageFlags.IS_COMPONENTS_V2",
        )
    if not (msg.content or msg.embeds or msg.components or msg.attachments) and not msg.loading:
        raise HTTPError(400, 50006, "Cannot send an empty message")
    if len(msg.embeds) > 10:
        raise form_error("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total_embed_chars = 0
    for i, embed in enumerate(msg.embeds):
        for key, limit in (("title", 256), ("description", 4096)):
            value = str(embed.get(key) or "")
            total_embed_chars += len(value)
            if len(value) > limit:
                raise form_error(
                    f"embeds.{i}.{key}",
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limit} or fewer in length.",
                )
        for fld in embed.get("fields", []):
            total_embed_chars += len(str(fld.get("name", ""))) + len(str(fld.get("value", "")))
    if total_embed_chars > 6000:
        raise form_error("embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
    validate_components(msg.components, v2)


def validate_components(components: list[dict[str, Any]], v2: bool) -> None:
    if v2:
        for i, comp in enumerate(components):
            if comp.get("type") not in V2_TOP_LEVEL_TYPES:
                raise form_error(
                    f"components.{i}.type",
                    "UNION_TYPE_CHOICES",
                    'Value of field "type" must be one of top-level types.',
                )
        # Component Reference: "Messages allow up to 40 total components" - nested ones
        # (a container's children, a section's texts and accessory) count; a container has
        # no limit of its own since 2025-04-29 (change log "Raised Component Limits").
        total = sum(1 for _ in walk_components(components))
        if total > 40:
            raise form_error("components", "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in length.")
    else:
        if len(components) > 5:
            raise form_error("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
        for i, comp in enumerate(components):
            if comp.get("type") != COMPONENT_ACTION_ROW:
                raise form_error(
                    f"components.{i}.type",
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED"
                    if comp.get("type") in INTERACTIVE_TYPES
                    else "UNION_TYPE_CHOICES",
                    "Top-level components must be action rows without the IS_COMPONENTS_V2 flag.",
                )
    seen: set[str] = set()
    for path, comp in _walk_with_paths(components, "components"):
        validate_component(path, comp, seen)
    if v2:
        # 4000 characters of text across the message's text displays: not on Discord's
        # pages but enforced by it, as discord.py documents (ui.TextDisplay "Up to 4000
        # characters", LayoutView.content_length "a maximum of 4000 display characters
        # across all its items") and JDA (TextDisplay: "the 4000 total characters, as
        # imposed by components V2"). The error code is the fake's.
        text_len = sum(
            len(str(c.get("content", "")))
            for c in walk_components(components)
            if c.get("type") == COMPONENT_TEXT_DISPLAY
        )
        if text_len > 4000:
            raise form_error(
                "components",
                "MAX_TEXT_LENGTH",
                "Total text in components exceeds 4000 characters.",
            )


def validate_component(path: str, comp: dict[str, Any], seen: set[str]) -> None:
    """One component's own limits (rows' width, custom ids, labels, options)."""
    ctype = comp.get("type")
    if ctype == COMPONENT_ACTION_ROW:
        # "Up to 5 contextually grouped buttons" or "A single select component"
        children = comp.get("components", [])
        _children_of(path, children, INTERACTIVE_TYPES)
        selects = [c for c in children if c.get("type") in SELECT_TYPES]
        if not children or len(children) > 5 or (selects and len(children) > 1):
            raise form_error(
                f"{path}.components",
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
    elif ctype == COMPONENT_SECTION:
        _validate_section(path, comp)
    elif ctype == COMPONENT_CONTAINER:
        _children_of(path, comp.get("components") or [], CONTAINER_CHILD_TYPES)
    elif ctype == COMPONENT_TEXT_DISPLAY:
        # "content: Text that will be displayed similar to a message" (required); at most
        # 4000 characters, the whole message's text limit (see _validate_components)
        _max_length(f"{path}.content", comp.get("content"), 4000, required=True)
    elif ctype == COMPONENT_THUMBNAIL:
        media = comp.get("media")
        if not isinstance(media, dict) or not media.get("url"):
            raise form_error(f"{path}.media", "BASE_TYPE_REQUIRED", "This field is required")
    if ctype in INTERACTIVE_TYPES:
        takes_custom_id = ctype != COMPONENT_BUTTON or comp.get("style") not in (
            BUTTON_LINK,
            BUTTON_PREMIUM,
        )
        cid = comp.get("custom_id")
        if takes_custom_id:
            if not cid:
                raise form_error(f"{path}.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
            if len(cid) > 100:
                raise form_error(
                    f"{path}.custom_id",
                    "BASE_TYPE_MAX_LENGTH",
                    "Must be 100 or fewer in length.",
                )
            if cid in seen:
                raise form_error(
                    f"{path}.custom_id",
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            seen.add(cid)
        if ctype == COMPONENT_BUTTON:
            _validate_button(path, comp)
        if ctype in SELECT_TYPES:
            _validate_select(path, comp)


def _walk_with_paths(components: list[dict[str, Any]], prefix: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for i, comp in enumerate(components):
        path = f"{prefix}.{i}"
        yield path, comp
        if isinstance(comp.get("components"), list):
            yield from _walk_with_paths(comp["components"], f"{path}.components")
        for key in ("accessory", "component"):
            if isinstance(comp.get(key), dict):
                yield f"{path}.{key}", comp[key]


def _not_allowed(path: str, field: str, why: str) -> HTTPError:
    """A field the component's kind must not carry (the code is the fake's own)."""
    return form_error(f"{path}.{field}", "COMPONENT_FIELD_NOT_ALLOWED", why)


def _validate_button(path: str, comp: dict[str, Any]) -> None:
    """A button's fields by style: developers/components/reference.mdx, "Button Structure" -
    "Non-link and non-premium buttons **must** have a custom_id, and cannot have a url or a
    sku_id. Link buttons **must** have a url, and cannot have a custom_id. Premium buttons
    **must** contain a sku_id, and cannot have a custom_id, label, url, or emoji."; label
    max 80 characters, url max 512. (custom_id itself is checked with every component's.)"""
    style = comp.get("style")
    if style not in BUTTON_STYLES:
        raise form_error(f"{path}.style", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}.")
    if style == BUTTON_LINK:
        url = comp.get("url")
        if not url:
            raise form_error(f"{path}.url", "BASE_TYPE_REQUIRED", "This field is required")
        if len(str(url)) > 512:
            raise form_error(f"{path}.url", "BASE_TYPE_MAX_LENGTH", "Must be 512 or fewer in length.")
        forbidden = {
            "custom_id": "Link buttons cannot have a custom_id",
            "sku_id": "Link buttons cannot have a sku_id",
        }
    elif style == BUTTON_PREMIUM:
        if not comp.get("sku_id"):
            raise form_error(f"{path}.sku_id", "BASE_TYPE_REQUIRED", "This field is required")
        forbidden = {
            key: f"Premium buttons cannot have a {key}" for key in ("custom_id", "label", "url", "emoji")
        }
    else:
        forbidden = {key: f"Non-link buttons cannot have a {key}" for key in ("url", "sku_id")}
    for key, why in forbidden.items():
        if comp.get(key) is not None:
            raise _not_allowed(path, key, why)
    if len(str(comp.get("label") or "")) > 80:
        raise form_error(f"{path}.label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length.")
    if style != BUTTON_PREMIUM and not comp.get("label") and not comp.get("emoji"):
        raise form_error(path, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A label or emoji is required")


def _max_length(path: str, value: Any, limit: int, *, required: bool = False) -> None:
    if value is None or value == "":
        if required:
            raise form_error(path, "BASE_TYPE_REQUIRED", "This field is required")
        return
    if len(str(value)) > limit:
        raise form_error(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _number_at_most(path: str, value: int, limit: int) -> None:
    if value > limit:
        raise form_error(path, "NUMBER_TYPE_MAX", f"int value should be less than or equal to {limit}.")


def _number_at_least(path: str, value: int, limit: int) -> None:
    if value < limit:
        raise form_error(path, "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {limit}.")


def _children_of(path: str, children: list[dict[str, Any]], allowed: tuple[int, ...]) -> None:
    """Every child of a layout component is of a type its page allows there."""
    for i, child in enumerate(children):
        if child.get("type") not in allowed:
            raise form_error(
                f"{path}.components.{i}.type",
                "UNION_TYPE_CHOICES",
                f'Value of field "type" must be one of {allowed}.',
            )


def _validate_section(path: str, comp: dict[str, Any]) -> None:
    """developers/components/reference.mdx, "Section Structure": components - "One to three
    child components" (Section Child Components: Text Display); accessory - "A component
    that is contextually associated to the content of the section" (required; Section
    Accessory Components: Button, Thumbnail)."""
    children = comp.get("components") or []
    if not 1 <= len(children) <= 3:
        raise form_error(f"{path}.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 3 in length.")
    _children_of(path, children, (COMPONENT_TEXT_DISPLAY,))
    accessory = comp.get("accessory")
    if not isinstance(accessory, dict):
        raise form_error(f"{path}.accessory", "BASE_TYPE_REQUIRED", "This field is required")
    if accessory.get("type") not in (COMPONENT_BUTTON, COMPONENT_THUMBNAIL):
        raise form_error(
            f"{path}.accessory.type",
            "UNION_TYPE_CHOICES",
            f'Value of field "type" must be one of {(COMPONENT_BUTTON, COMPONENT_THUMBNAIL)}.',
        )


def _validate_select(path: str, comp: dict[str, Any]) -> None:
    """A select menu's limits: developers/components/reference.mdx, "String Select Structure"
    (and the user, role, mentionable and channel selects alike): placeholder max 150
    characters, min_values 0-25 (default 1), max_values 1-25 (default 1); a string select's
    options max 25 ("Specified choices in a select menu"), each "Select Option Structure":
    label and value max 100 characters, description max 100. Beyond the page: an empty
    options list, an empty label or value, two options of one value, min_values above
    max_values and max_values above the number of options are refused too (a menu no one
    could answer as asked)."""
    _max_length(f"{path}.placeholder", comp.get("placeholder"), 150)
    low = int(comp.get("min_values", 1))
    high = int(comp.get("max_values", 1))
    _number_at_least(f"{path}.min_values", low, 0)
    _number_at_most(f"{path}.min_values", low, 25)
    _number_at_least(f"{path}.max_values", high, 1)
    _number_at_most(f"{path}.max_values", high, 25)
    _number_at_most(f"{path}.min_values", low, high)
    if comp.get("type") != COMPONENT_STRING_SELECT:
        return
    opts = comp.get("options") or []
    if not 1 <= len(opts) <= 25:
        raise form_error(f"{path}.options", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length.")
    for i, opt in enumerate(opts):
        _max_length(f"{path}.options.{i}.label", opt.get("label"), 100, required=True)
        _max_length(f"{path}.options.{i}.value", opt.get("value"), 100, required=True)
        _max_length(f"{path}.options.{i}.description", opt.get("description"), 100)
    values = [opt.get("value") for opt in opts]
    if len(set(values)) != len(values):
        raise form_error(
            f"{path}.options",
            "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
            "Select option values must be unique",
        )
    _number_at_most(f"{path}.max_values", high, len(opts))


def _validate_command_options(options: list[dict[str, Any]], path: str) -> None:
    if len(options) > 25:
        raise form_error(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    seen_optional = False
    for i, opt in enumerate(options):
        name = str(opt.get("name", ""))
        if not COMMAND_NAME_RE.fullmatch(name) or name != name.lower():
            raise form_error(f"{path}.{i}.name", "APPLICATION_COMMAND_INVALID_NAME", "Option name is invalid")
        if not 1 <= len(str(opt.get("description", ""))) <= 100:
            raise form_error(
                f"{path}.{i}.description",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        if opt.get("type") in (1, 2):
            _validate_command_options(opt.get("options") or [], f"{path}.{i}.options")
            continue
        if opt.get("required"):
            if seen_optional:
                raise form_error(
                    f"{path}.{i}.required",
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        if len(opt.get("choices") or []) > 25:
            raise form_error(f"{path}.{i}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")


def validate_command(body: dict[str, Any], index: int) -> None:
    """An application command as registered: its name, description and options."""
    ctype = int(body.get("type", 1))
    name = str(body.get("name", ""))
    if not COMMAND_NAME_RE.fullmatch(name) or (ctype == 1 and name != name.lower()):
        raise form_error(f"{index}.name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    if ctype == 1 and not 1 <= len(str(body.get("description", ""))) <= 100:
        raise form_error(
            f"{index}.description",
            "BASE_TYPE_BAD_LENGTH",
            "Must be between 1 and 100 in length.",
        )
    for loc_name in (body.get("name_localizations") or {}).values():
        if not COMMAND_NAME_RE.fullmatch(loc_name) or (ctype == 1 and loc_name != loc_name.lower()):
            raise form_error(
                f"{index}.name_localizations",
                "APPLICATION_COMMAND_INVALID_NAME",
                "Command name is invalid",
            )
    _validate_command_options(body.get("options") or [], f"{index}.options")
