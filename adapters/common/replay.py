"""/history and replays as text, in the chat's language (issue 36.4): the chat's last
matches a page at a time, and a match's replay a deal at a time, each deal cut into pages
that fit a platform's message (Telegram 4096 characters, Discord 2000).

Only ended matches reach here (``bot/history.py``): the hands as dealt and every card
that went face down are shown, since the match is over.
"""

from __future__ import annotations

import time
from typing import Any

from adapters.common.render import Text
from bot.history import KEEP, Replay, ReplayDeal

PER_PAGE = 5  # matches a page of /history
DEAL_ENDS = ("deal_ended", "deal_scored")


def when(ts: float) -> str:
    """A match's date, the same for everyone whatever his clock: UTC."""
    return time.strftime("%d.%m.%Y %H:%M UTC", time.gmtime(ts))


def names(entry: dict[str, Any], seats: list[int]) -> str:
    marks = entry.get("computer") or []
    return "+".join(("🤖 " if s < len(marks) and marks[s] else "") + entry["names"][s] for s in seats)


def result(t: Text, entry: dict[str, Any]) -> str:
    """The line-up with each side's score, and who won: "Anna+Vera 4 · Boris+Gleb 12 → 🏆 Boris+Gleb"."""
    sides = entry["sides"]
    scores = entry.get("score") or []
    parts = [
        f"{names(entry, seats)} {scores[i] if i < len(scores) else '?'}" for i, seats in enumerate(sides)
    ]
    winners = set(entry.get("winners") or [])
    won = [names(entry, seats) for seats in sides if winners & set(seats)]
    text = " · ".join(parts) + (" → 🏆 " + ", ".join(won) if won else "")
    if entry.get("abandoned"):
        text += " " + t._("({name} gave up)").format(name=entry["abandoned"])
    return text


def pages_of_list(entries: list[dict[str, Any]]) -> int:
    return max(1, -(-len(entries) // PER_PAGE))


def history_page(t: Text, entries: list[dict[str, Any]], page: int) -> str:
    """One page of /history: the matches, newest first, numbered."""
    if not entries:
        return t._("No match has ended in this chat yet (the last {n} are kept).").format(n=KEEP)
    page = max(0, min(page, pages_of_list(entries) - 1))
    rows = ["📜 " + t._("The last matches in this chat")]
    for i, entry in enumerate(entries[page * PER_PAGE : (page + 1) * PER_PAGE], start=page * PER_PAGE + 1):
        title = t.preset_title(entry["preset"])
        rows.append(f"{i}. {when(entry['date'])} · {title}")
        rows.append(f"   {result(t, entry)}")
        if not entry.get("replay"):
            rows.append("   " + t._("(no replay kept for this match)"))
    if pages_of_list(entries) > 1:
        rows.append(t._("Page {page} of {pages}").format(page=page + 1, pages=pages_of_list(entries)))
    return "\n".join(rows)


def deal_lines(t: Text, rep: Replay, deal: ReplayDeal) -> list[str]:
    """The deal in order: the hands as dealt, then every move and what it caused."""
    table = rep.table
    head = t._("Deal {deal_no}").format(deal_no=deal.deal_no)
    if deal.no != deal.deal_no:  # a redeal, a boast made again: a dealing of its own
        head += " · " + t._("dealing {n}").format(n=deal.no)
    trump = t.suit(deal.trump) if deal.trump else "—"
    if deal.trump_card:
        trump += f" ({t.card(deal.trump_card)})"
    rows = [
        f"🃏 {head} · " + t._("dealer: {name}").format(name=t.seat_name(table, deal.dealer)),
        t._("Trump: {trump}").format(trump=trump),
    ]
    rows += [f"✋ {t.seat_name(table, s)}: {t.cards(hand)}" for s, hand in enumerate(deal.hands) if hand]
    for step in deal.steps:
        for line in step.lines:
            if line.key in DEAL_ENDS:
                rows.append("🏁 " + t.deal_result(line, table))
            elif line.key == "trick_won":
                rows.append("   → " + t.line(line, table))
            else:
                text = t.line(line, table)
                if text:
                    rows.append("• " + text)
    return rows


def replay_pages(t: Text, rep: Replay, index: int, limit: int) -> list[str]:
    """Deal ``index`` of the replay as pages of at most ``limit`` characters, each headed
    with the match and where in it the page is."""
    deal = rep.deals[index]
    title = f"🎬 {t.preset_title(rep.summary['preset'])} · {when(rep.summary['date'])}"
    where = t._("dealing {n} of {total}").format(n=index + 1, total=len(rep.deals))
    lines = deal_lines(t, rep, deal)
    room = limit - len(title) - len(where) - 40  # the head and a page count
    chunks: list[list[str]] = [[]]
    size = 0
    for line in lines:
        line = line[:room]
        if chunks[-1] and size + len(line) + 1 > room:
            chunks.append([])
            size = 0
        chunks[-1].append(line)
        size += len(line) + 1
    pages = []
    for i, chunk in enumerate(chunks):
        mark = f" · {i + 1}/{len(chunks)}" if len(chunks) > 1 else ""
        pages.append("\n".join([title, where + mark, *chunk]))
    if index == len(rep.deals) - 1:
        end = "🏆 " + result(t, rep.summary)
        if len(pages[-1]) + len(end) + 1 <= limit:
            pages[-1] += "\n" + end
        else:
            pages.append("\n".join([title, where, end]))
    return pages
