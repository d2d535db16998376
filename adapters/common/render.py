"""Views to text, in the chat's language: shared by every adapter.

Only views reach this module, and the table view holds no hidden card: whatever is drawn
from it is safe to show a group.
"""

from __future__ import annotations

import gettext
from typing import Any

from adapters.common.chart import score_chart, worth_a_chart
from adapters.common.i18n import N_, translator
from adapters.common.results import ResultWords
from adapters.common.words import (
    BACK,
    COMBINATIONS,
    DEAL_END_KEYS,
    HINTS,
    KINDS,
    LINES,
    OPTION_TITLES,
    OUTCOMES,
    PRESET_TITLES,
    PROMPTS,
    REASONS,
    RULES_SUMMARIES,
    SUIT,
    TOP_TRUMPS,
    VALUE_TITLES,
    option_values,
    value_title,
)
from bot.views import Choice, HandView, Hint, Line, PlayView, SeatView, TableView, VoteView
from engine.presets import PRESETS

# the words' tables are adapters/common/words.py's, read here too by their old names
__all__ = [
    "BACK",
    "COMBINATIONS",
    "DEAL_END_KEYS",
    "HINTS",
    "KINDS",
    "LINES",
    "OPTION_TITLES",
    "OUTCOMES",
    "PRESET_TITLES",
    "PROMPTS",
    "REASONS",
    "RULES_SUMMARIES",
    "SUIT",
    "TOP_TRUMPS",
    "VALUE_TITLES",
    "Text",
    "clip_lines",
    "match_chart",
    "option_values",
    "value_title",
]


class Text(ResultWords):
    """One language's words for views."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.t: gettext.NullTranslations = translator(lang)

    def _(self, text: str) -> str:
        return self.t.gettext(text)

    def n(self, one: str, many: str, n: int) -> str:
        return self.t.ngettext(one, many, n)

    # --- cards ----------------------------------------------------------------------------

    @staticmethod
    def card(card: str) -> str:
        return card[:-1] + SUIT[card[-1]]

    def suit(self, letter: str) -> str:
        return SUIT.get(letter, letter)

    def preset_title(self, preset: str) -> str:
        return self._(PRESET_TITLES.get(preset, preset))

    def cards(self, cards: list[str] | None, count: int = 0) -> str:
        if cards is None:
            return BACK * count
        return " ".join(self.card(c) for c in cards)

    # --- lines ----------------------------------------------------------------------------

    def line(self, line: Line, table: TableView | None = None) -> str:
        template = LINES.get(line.key)
        if template is None:
            return ""
        p = self._worded_params(line.params)
        if table is not None:
            self._name_seats(line.key, p, table)
        if line.key == "seats_swapped":  # seats are numbered from 1 on screen
            p["a"], p["b"] = int(p["a"]) + 1, int(p["b"]) + 1
        p.setdefault("name", "?")
        p.setdefault("names", "?")
        if line.key == "deck_cut" and isinstance(p.get("count"), int):  # "24 карты"
            template = self.n("{name} cuts {count} card", "{name} cuts {count} cards", p["count"])
            return template.format(**p)
        try:
            return self._(template).format(**p)
        except (KeyError, IndexError, ValueError):
            return self._(template)

    def _worded_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """A line's parameters with its cards, combination, game and move kind worded."""
        p = dict(params)
        for k in ("cards", "face_up"):
            if isinstance(p.get(k), list):
                p[k] = self.cards(p[k])
        if isinstance(p.get("card"), str):
            p["card"] = self.card(p["card"])
        if "combination" in p:
            p["combination"] = self._(COMBINATIONS.get(p["combination"], p["combination"]))
        if "preset" in p:
            p["preset"] = self._(PRESET_TITLES.get(p["preset"], p["preset"]))
        if "choice" in p:
            p["choice"] = self._(KINDS.get(p["choice"], p["choice"]))
        return p

    def _name_seats(self, key: str, p: dict[str, Any], table: TableView) -> None:
        """The names of the seats and sides a line speaks of, into its parameters."""
        if "name" not in p and isinstance(p.get("seat"), int):
            p["name"] = self.seat_name(table, p["seat"])
        if "seats" in p and key in ("side_out", "rooster_chosen"):
            p["names"] = ", ".join(self.seat_name(table, s, p) for s in p["seats"])
        if "side" in p and key in ("lyusya", "redeal_penalty"):
            p["names"] = self.side_name(table, p["side"])
        if key == "shuffled" and isinstance(p.get("cutter"), int):
            p["name"] = self.seat_name(table, p["cutter"])
        if key == "play_started" and isinstance(p.get("leader"), int):
            p["name"] = self.seat_name(table, p["leader"])

    def reason(self, code: str | None) -> str:
        return self._(REASONS.get(code or "", N_("That is not possible now.")))

    # --- table ----------------------------------------------------------------------------

    def seat_name(self, table: TableView, seat: int, params: dict[str, Any] | None = None) -> str:
        """A seat's name: from the line's own ``seat_names`` (the seat's holder when it was
        written) if it has them, else from the table."""
        names = (params or {}).get("seat_names")
        if isinstance(names, list) and 0 <= seat < len(names):
            return str(names[seat])
        s = table.seats[seat] if 0 <= seat < len(table.seats) else None
        if s is None:
            return "—"
        return ("🤖 " if s.computer and not s.auto else "") + s.name

    def title(self, table: TableView) -> str:
        return self.preset_title(table.preset)

    def options(self, table: TableView) -> str:
        parts = []
        for k, v in table.options.items():
            parts.append(f"{self._(OPTION_TITLES.get(k, k))}: {self._(value_title(v))}")
        return " · ".join(parts)

    def lobby(self, table: TableView) -> str:
        head = f"🐐 {self.title(table)} · " + self.n("{n} player", "{n} players", table.size).format(
            n=table.size
        )
        rows = [head, self._("Seats:")]
        for i, s in enumerate(table.seats):
            team = ""
            if table.partnership:  # the teams come in the view (issue 16: no preset names)
                side = next((k for k, seats in enumerate(table.sides) if i in seats), 0)
                team = "  " + (self._("team A") if side == 0 else self._("team B"))
            rows.append(f" {i + 1}. {self.seat_name(table, i) if s else '—'}{team}")
        opts = self.options(table)
        if opts:
            rows.append(self._("Rules: {options}").format(options=opts))
        changed = self.changed_line(table)
        if changed:
            rows.append(changed)
        return "\n".join(rows)

    def changed_line(self, table: TableView) -> str | None:
        """Issue 36.1: the options of a lobby that are not the game's own (the chat's house
        rules), said; None: none."""
        if not table.changed:
            return None
        return self._("House rules (not the game's own): {options}").format(
            options=" · ".join(
                f"{self._(OPTION_TITLES.get(k, k))}: {self._(value_title(table.options.get(k)))}"
                for k in table.changed
            )
        )

    def side_name(self, table: TableView, side: int, params: dict[str, Any] | None = None) -> str:
        """A side's seats' names (``params``: a line's own names of the seats, if any)."""
        seats = table.sides[side] if side < len(table.sides) else [side]
        return "+".join(self.seat_name(table, s, params) for s in seats)

    def play(self, table: TableView, p: PlayView) -> str:
        tag = ""
        if p.kind == "throw":
            tag = " " + self._("(thrown)")
        elif table.winning_seat == p.seat and p.kind in ("beat", "lead", "play"):
            tag = " " + self._("(winning)")
        return f"{self.seat_name(table, p.seat)}: {self.cards(p.cards, p.count)}{tag}"

    def table(self, table: TableView, now: float | None = None) -> str:
        if table.state == "lobby":
            return self.lobby(table)
        head = self._table_head(table)
        rows = [head]
        score = " · ".join(f"{self.side_name(table, i)} {v}" for i, v in enumerate(table.scores))
        rows.append(self._("Score: {score} (to {target})").format(score=score, target=table.target))
        rows.append("")
        for s in table.seats:
            if s is None:
                continue
            rows.append(self._seat_row(table, s))
        rows.append("")
        if table.trick:
            rows.append(
                self._("On the table: {plays}").format(
                    plays=" · ".join(self.play(table, p) for p in table.trick)
                )
            )
        if table.last_trick:
            winner, plays = table.last_trick
            rows.append(
                self._("Last trick: {name} ({plays})").format(
                    name=self.seat_name(table, winner),
                    plays=" · ".join(self.cards(p.cards, p.count) for p in plays),
                )
            )
        if table.queue:
            rows.append("⏳ " + self._("Waiting for a seat: {names}").format(names=", ".join(table.queue)))
        if table.vote is not None:
            rows.append(self.vote(table.vote))
        for ln in table.lines[-3:]:
            text = self.line(ln, table)
            if text:
                rows.append("• " + text)
        rows.extend(self._table_end(table, now))
        return "\n".join(rows)

    def vote(self, vote: VoteView) -> str:
        """A request to end the match, and how many of the others agreed."""
        return "🗳 " + self._("{name} asks to end the match: {agreed} of {needed} agreed").format(
            name=vote.by, agreed=vote.agreed, needed=vote.needed
        )

    def _table_head(self, table: TableView) -> str:
        """The game, the deal, the trump (and its card, where shown), the stock."""
        trump = SUIT.get(table.trump or "", "?")
        head = f"🐐 {self.title(table)} · " + self._("deal {n}").format(n=table.deal_no)
        head += " · " + self.trump_label(table.preset, trump)
        if table.trump_card and table.trump_mode == "last":  # the dealer's last card, shown
            head += " " + self._("(trump card {card})").format(card=self.card(table.trump_card))
        elif table.trump_card and table.stock:
            head += " " + self._("({card} under the stock)").format(card=self.card(table.trump_card))
        if table.stock:
            head += " · " + self._("stock {n}").format(n=table.stock)
        return head

    def _table_end(self, table: TableView, now: float | None) -> list[str]:
        """The winners, or whose turn it is and the seconds left."""
        if table.finished:
            names = ", ".join(self.seat_name(table, s) for s in table.winners)
            return ["🏁 " + self._("Winners: {names}").format(names=names)]
        if table.deadline is not None and now is not None and table.to_move is not None:
            left = max(0, int(table.deadline - now))
            return [
                "⏳ "
                + self._("{name}, {seconds} s").format(
                    name=self.seat_name(table, table.to_move), seconds=left
                )
            ]
        return []

    def _seat_row(self, table: TableView, s: SeatView) -> str:
        mark = " ▸ " + self._("to move") if s.on_move else ""
        if s.out:
            mark = " · " + self._("out")
        return f" {self.seat_name(table, s.index)}{mark}  {BACK} {s.hand_size}"

    # --- hand -----------------------------------------------------------------------------

    def prompt(self, hand: HandView) -> str:
        if hand.prompt == "lead":
            return (
                self._("your lead (1–4 cards of one suit)") if hand.table.multi_lead else self._("your lead")
            )
        if hand.prompt == "answer":
            return self.n(
                "answer with {n} card: beat or throw", "answer with {n} cards: beat or throw", hand.need
            ).format(n=hand.need)
        if hand.prompt == "play":
            return self._("your move")
        if hand.prompt == "declare":
            return self._("you may declare")
        if hand.prompt == "cover":
            return self.n(
                "cover the boast with {n} card", "cover the boast with {n} cards", hand.need
            ).format(n=hand.need)
        if hand.prompt in PROMPTS:
            return self._(PROMPTS[hand.prompt])
        if hand.prompt == "over":
            return self._("the game is over")
        return self._("waiting for {name}").format(name=self.seat_name(hand.table, hand.table.to_move or 0))

    def trump_label(self, preset: str, suit: str) -> str:
        """``Trump: ♦``; the permanent-trump presets name their whole ladder (RULES.md 4)."""
        # in words: a card's own notation here would read like a card on the table
        top = TOP_TRUMPS.get(preset)
        if top is None:
            return self._("Trump: {suit}").format(suit=suit)
        return self._("Trumps: {top}, queens, jacks, {suit}").format(top=self._(top), suit=suit)

    def bare_choice(self, c: Choice) -> str:
        """The label of a move without cards (a cut names its place in the deck)."""
        if c.kind == "cut":
            return "✂️ " + self.n("Cut {n} card", "Cut {n} cards", c.number).format(n=c.number)
        icon = {"redeal": "🔄", "pass": "🚪", "keep": "✋", "reboast": "👖", "finish": "🏆", "skip": "⏭"}.get(
            c.kind, "✔"
        )
        return f"{icon} {self._(KINDS.get(c.kind, c.kind))}"

    def hint_text(self, hint: Hint) -> str:
        """What a strong computer player would play here, and why."""
        c = hint.choice
        move = self.bare_choice(c) if not c.cards else self.choice(c.kind, c.cards)
        why = self._(HINTS.get(hint.reason, HINTS["hint_plain"]))
        try:
            why = why.format(**hint.params)
        except (KeyError, IndexError, ValueError):
            pass
        if isinstance(hint.params.get("share"), int):  # the search's trial deals
            why = self._("{why} (trial deals: {share}%)").format(why=why, share=hint.params["share"])
        return "💡 " + self._("Hint: {move} — {why}").format(move=move, why=why)

    def choice(self, kind: str, cards: list[str]) -> str:
        return f"{self._(KINDS.get(kind, kind))} {self.cards(cards)}".strip()

    def hand(self, hand: HandView) -> str:
        trump = SUIT.get(hand.trump, "?")
        return "\n".join(
            [
                self._("Your cards: {cards}").format(cards=self.cards(hand.cards)),
                self.trump_label(hand.table.preset, trump) + " · " + self.prompt(hand),
            ]
        )

    def rules_card(self, preset: str, bold: bool = False) -> str:
        """A short rules card: the summary, the options and their values, player counts."""
        title = self.preset_title(preset)
        rows = [f"🐐 **{title}**" if bold else f"🐐 {title}", self._(RULES_SUMMARIES.get(preset, preset))]
        for name, values in option_values(preset):
            shown = " / ".join(self._(value_title(v)) for v in values)
            rows.append(f"• {self._(OPTION_TITLES.get(name, name))}: {shown}")
        rows.append(
            "• "
            + self._("players: {counts}").format(counts=", ".join(str(n) for n in PRESETS[preset].players))
        )
        return "\n".join(rows)

    def chart_setting(self, on: bool) -> str:
        state = self._(VALUE_TITLES[on])
        return "📈 " + self._("Score chart after a long match: {state}").format(state=state)


def match_chart(table: TableView, progress: list[list[int]]) -> bytes | None:
    """The match's score deal by deal as a PNG (one line a side, ``LEGEND``'s colours), or
    None when the match was too short to need one. Petukh's lines start at the start record."""
    if not progress or not worth_a_chart(progress):
        return None
    start = table.score_start if table.target == 0 else 0
    return score_chart(progress, target=table.target, start=start)


def clip_lines(text: str, limit: int, size: Any = len) -> str:
    """``text`` within ``limit`` (as ``size`` counts), cut after a whole line, "…" last."""
    if size(text) <= limit:
        return text
    kept: list[str] = []
    for line in text.split("\n"):
        if size("\n".join([*kept, line, "…"])) > limit:
            break
        kept.append(line)
    return "\n".join([*kept, "…"]) if kept else text[: max(0, limit - 1)] + "…"
