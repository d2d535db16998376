"""The messages the world keeps, as Discord stores them: created (numbered components,
attachments with their URLs, an interaction's metadata), edited (ephemerality and
IS_COMPONENTS_V2 sticky, the edit refused whole if the result is), validated."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.fakes.discord.model import (
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    HTTPError,
    now_iso,
    walk_components,
)
from tests.fakes.discord.protocol import FLAG_EPHEMERAL, FLAG_IS_COMPONENTS_V2, FLAG_LOADING
from tests.fakes.discord.validation import validate_message
from tests.fakes.discord.world import World


class MessageStore:
    """Messages in ``world.messages``; ``attachment_base``: the server's base URL, for the
    attachments' URLs."""

    def __init__(self, world: World, attachment_base: Callable[[], str]) -> None:
        self.world = world
        self.attachment_base = attachment_base

    def create_message(
        self,
        channel: FakeChannel | int,
        author: FakeUser,
        body: Mapping[str, Any],
        *,
        files: Sequence[dict[str, Any]] = (),
        interaction: FakeInteraction | None = None,
        msg_type: int = 0,
        flags: int | None = None,
    ) -> FakeMessage:
        ch = channel if isinstance(channel, FakeChannel) else self.world.channels.get(channel)
        cid = ch.id if ch else int(channel)  # type: ignore[arg-type]
        msg = FakeMessage(
            id=self.world.ids.next(),
            channel_id=cid,
            guild_id=ch.guild_id if ch else None,
            author=author,
            content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []),
            components=number_components(list(body.get("components") or [])),
            flags=int(body.get("flags") or 0) if flags is None else flags,
            type=msg_type,
            message_reference=body.get("message_reference"),
        )
        self._attach_files(msg, body, files)
        if interaction is not None:
            msg.webhook_id = self.world.application_id
            msg.interaction_id = interaction.id
            msg.interaction_metadata = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.payload(),
                "authorizing_integration_owners": interaction.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
            if interaction.source_message_id is not None:
                msg.interaction_metadata["interacted_message_id"] = str(interaction.source_message_id)
            if msg.flags & FLAG_EPHEMERAL:
                msg.ephemeral_for = interaction.user.id
        self.world.messages[msg.id] = msg
        if ch is not None and ch.is_thread:
            ch.thread_member_ids.add(author.id)
        self.world.changed()
        return msg

    def _attach_files(
        self, msg: FakeMessage, body: Mapping[str, Any], files: Sequence[dict[str, Any]]
    ) -> None:
        if "attachments" in body:
            keep = {str(a.get("id")) for a in body.get("attachments") or []}
            msg.attachments = [a for a in msg.attachments if a["id"] in keep]
        for f in files:
            att_id = str(self.world.ids.next())
            url = f"{self.attachment_base()}/attachments/{msg.channel_id}/{att_id}/{f['filename']}"
            msg.attachments.append(
                {
                    "id": att_id,
                    "filename": f["filename"],
                    "size": len(f["data"]),
                    "url": url,
                    "proxy_url": url,
                    "content_type": f.get("content_type") or "application/octet-stream",
                }
            )
            msg.files[f["filename"]] = f["data"]

    def edit_message(
        self, msg: FakeMessage, body: Mapping[str, Any], files: Sequence[dict[str, Any]] = ()
    ) -> None:
        before = (
            msg.content,
            list(msg.embeds),
            list(msg.components),
            msg.flags,
            list(msg.attachments),
        )
        if "content" in body:
            msg.content = str(body["content"] or "")
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = number_components(list(body["components"] or []))
        if "flags" in body and body["flags"] is not None:
            # ephemerality can't change; IS_COMPONENTS_V2 can't be removed once set
            sticky = msg.flags & (FLAG_EPHEMERAL | FLAG_IS_COMPONENTS_V2)
            msg.flags = (int(body["flags"]) & ~(FLAG_EPHEMERAL | FLAG_LOADING)) | sticky
        msg.flags &= ~FLAG_LOADING
        self._attach_files(msg, body, files)
        try:
            self.validate_message(msg)
        except HTTPError:
            msg.content, msg.embeds, msg.components, msg.flags, msg.attachments = before
            raise
        msg.edited_timestamp = now_iso()
        msg.edits.append(dict(body))
        self.world.changed()

    def build_validated(
        self,
        channel: FakeChannel | int,
        author: FakeUser,
        body: Mapping[str, Any],
        files: Sequence[dict[str, Any]],
        **kwargs: Any,
    ) -> FakeMessage:
        msg = self.create_message(channel, author, body, files=files, **kwargs)
        try:
            self.validate_message(msg)
        except HTTPError:
            del self.world.messages[msg.id]
            raise
        return msg

    def validate_message(self, msg: FakeMessage) -> None:
        if self.world.validate:
            validate_message(msg)


def number_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Discord assigns sequential numeric ``id``s to components that have none."""
    used = {c["id"] for c in walk_components(components) if isinstance(c.get("id"), int)}
    counter = 0
    for comp in walk_components(components):
        if comp.get("id") is None:
            counter += 1
            while counter in used:
                counter += 1
            comp["id"] = counter
    return components
