"""Issue 36.4 in Discord: /history answers its asker alone (ephemeral) with the channel's
ended matches; its buttons open a replay a deal at a time, page it within Discord's 2000
characters, and give the match's log as a file that ``python -m engine replay`` reads."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot.room import User
from bot.views import Line
from engine.cards import CARD_TEXT
from engine.cli import main as engine_main
from tests.fakes.discord_api import FakeChannel, FakeDiscord, FakeMessage, FakeUser

from .harness import Harness, check_limits, refusal_text, uid


async def two_at_a_table(h: Harness, fake: FakeDiscord) -> FakeChannel:
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel", "players": 2})
    await h.command(fake.bob, ch, "join")
    await h.press(fake.alice, await h.table(ch), "kz:t:start")
    return ch


async def moves(h: Harness, fake: FakeDiscord, ch: FakeChannel, count: int | None = None) -> None:
    rng = random.Random(0)
    people = [User(uid(u), u.username) for u in (fake.alice, fake.bob)]
    done = 0
    while count is None or done < count:
        room = await h.room(ch)
        if room.state != "playing":
            break
        for p in people:
            hv = h.service.hand_of(room, p.id)
            if hv is not None and hv.on_move:
                choices = [c for c in hv.choices if c.kind != "declare"] or hv.choices
                assert (await h.service.act(rng.choice(choices).token, p)).ok
                done += 1
                break
    await h.flush()


def history_ids(msg: FakeMessage) -> list[str]:
    return [c for c in msg.custom_ids() if c.startswith("kz:y:")]


def button(msg: FakeMessage, ending: str) -> str | None:
    found = [b["custom_id"] for b in msg.buttons() if b.get("label", "").endswith(ending)]
    return found[0] if found else None


async def test_i36_history_and_a_replay_in_discord_with_its_log_file(
    h: Harness, fake: FakeDiscord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ch = await two_at_a_table(h, fake)
    await moves(h, fake, ch, count=10)
    inter = await h.command(fake.carol, ch, "history")
    msg = h.reply(inter)
    assert msg.ephemeral and msg.ephemeral_for == fake.carol.id
    assert "No match has ended" in msg.text() and not history_ids(msg)
    await moves(h, fake, ch)
    room = await h.room(ch)
    assert room.state == "finished" and room.result is not None
    # the match is over: the guard may see every card of it (its replay shows them all)
    await h.guard.listener(room, [Line("played", {"cards": list(CARD_TEXT)})])
    inter = await h.command(fake.carol, ch, "history")
    msg = h.reply(inter)
    assert msg.ephemeral and msg.ephemeral_for == fake.carol.id
    assert "Alice" in msg.text() and "Bob" in msg.text() and "🏆" in msg.text()
    [opened] = history_ids(msg)
    assert opened.startswith(f"kz:y:{fake.carol.id}:") and len(opened) <= 100
    await h.press(fake.carol, msg, opened)
    assert "Deal 1" in msg.text() and "✋" in msg.text()
    pages = await page_through(h, fake.carol, msg)
    assert len(pages) > 3 and "🏆" in msg.text()
    # Bob cannot see Carol's answer; her button forged onto the table message is refused,
    # and so is a key no match of the channel has; nothing changes
    table = await h.table(ch)
    before = (table.content, msg.content)
    inter = await h.press(fake.bob, table, opened, check=False)
    assert "not valid" in refusal_text(h, inter)
    inter = await h.press(fake.carol, msg, f"kz:y:{fake.carol.id}:AAAAAAAA:0:0", check=False)
    assert "not valid" in refusal_text(h, inter)
    assert (table.content, msg.content) == before
    # the log as a file; the engine's command line replays it to the same result
    log_button = button(msg, "Log file")
    assert log_button is not None
    inter = await h.press(fake.carol, msg, log_button)
    sent = h.reply(inter)
    assert sent.ephemeral and sent.ephemeral_for == fake.carol.id
    summary = replayed(sent, tmp_path, capsys)
    assert summary["finished"] and summary["winners"] == room.result["winners"]
    assert summary["score"] == room.result["score"]


async def page_through(h: Harness, user: FakeUser, msg: FakeMessage) -> set[str]:
    """A replay's pages, pressed ▶ (or ⏭) by ``user`` to the last, each within Discord's
    limits."""
    pages = {msg.text()}
    for _ in range(200):
        check_limits(msg)
        assert len(msg.content) <= 2000 and all(len(c) <= 100 for c in msg.custom_ids())
        nxt = button(msg, "▶") or button(msg, "⏭")
        if nxt is None:
            break
        await h.press(user, msg, nxt)
        pages.add(msg.text())
    return pages


def replayed(sent: FakeMessage, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    """The engine's command line's summary of the log file ``sent`` carries."""
    [(name, data)] = sent.files.items()
    path = tmp_path / name
    path.write_bytes(data)
    assert engine_main(["replay", str(path)]) == 0
    return json.loads(capsys.readouterr().out)
