"""Views to text, in the chat's language: shared by every adapter.

Only views reach this module, and the table view holds no hidden card: whatever is drawn
from it is safe to show a group.
"""

from __future__ import annotations

import gettext
from typing import Any

from adapters.common.chart import LEGEND, score_chart, worth_a_chart
from adapters.common.i18n import N_, translator
from adapters.common.lobby import level_word
from bot.ratings import MIN_MATCHES
from bot.views import Choice, HandView, Hint, Line, PlayView, SeatView, TableView
from engine.presets import PRESETS

SUIT = {"C": "♣", "S": "♠", "H": "♥", "D": "♦"}
BACK = "🂠"

PRESET_TITLES = {
    "kozel": N_("Kozel · classic"),
    "kozel-4": N_("Kozel on 4 cards"),
    "kozel-60": N_("Kozel to 60"),
    "kozel-hvalenyi": N_("Hvaleny Kozel"),
    "kozel-nn": N_("Nizhny Novgorod Kozel"),
    "kozel-kocherga": N_("Kocherga"),
    "petukh": N_("Petukh"),
    "petukh-25": N_("Petukh to 25"),
}

OPTION_TITLES = {
    "shokha": N_("shokha (6♠ on top)"),
    "tie": N_("60:60"),
    "deal": N_("deal"),
    "deck": N_("deck"),
    "lyusya": N_("Lyusya (all tricks)"),
    "trump_suit": N_("trump suit"),
    "ace_rule": N_("ace rule"),
    "start": N_("start record"),
    "trump_swap": N_("dealer takes the trump"),
    "pass": N_("pass"),
    "must_beat": N_("must beat"),
    "lead_trump_ace": N_("lead the trump ace"),
    "no_trick_cap": N_("+5 for no trick up to"),
    "boys_table": N_("boys table"),
    "crooked_boys": N_("crooked boys"),
    "boys_finish": N_("boys finish"),
    "spade_ace": N_("ace of spades"),
    "elimination": N_("elimination (queue)"),
}

VALUE_TITLES = {
    True: N_("on"),
    False: N_("off"),
    "both_two": N_("2 each"),
    "eggs": N_("eggs"),
    "eggs_double": N_("eggs, next deal doubled"),
    "draw": N_("with drawing"),
    "halves": N_("two halves"),
    "match": N_("wins the match"),
    "reset": N_("wipes the other team"),
    "clubs": N_("clubs"),
    "spades": N_("spades"),
    "hearts": N_("hearts"),
    "diamonds": N_("diamonds"),
    "may": N_("may"),
    "must": N_("must"),
    "never": N_("never"),
    "auto": N_("start − 5"),
    "standard": N_("standard"),
    "thirty": N_("from 30"),
}

COMBINATIONS = {"moscow": N_("Moscow"), "molodka": N_("Molodka"), "pull": N_("a pull")}

LINES = {
    "room_created": N_("{name} opened a table: {preset}"),
    "joined": N_("{name} sat down"),
    "left": N_("{name} left the table"),
    "lobby_closed": N_("The table is closed"),
    "bot_added": N_("A computer player sat down"),
    "bot_removed": N_("A computer player left"),
    "kicked": N_("{name} was removed from the table"),
    "seats_swapped": N_("Seats {a} and {b} swapped"),
    "lobby_expired": N_("Nobody started the game: the table is closed"),
    "option_set": N_("Rules changed"),
    "size_set": N_("Table for {size}"),
    "cancelled": N_("{name} cancelled the game"),
    "deal_started": N_("Deal {deal_no}"),
    "led": N_("{name} leads {cards}"),
    "declared": N_("{name} declares {combination}: {cards}"),
    "cards_returned": N_("The cards on the table go back to their owners"),
    "beaten": N_("{name} beats with {cards}"),
    "thrown": N_("{name} throws {count} face down"),
    "played": N_("{name} plays {card}"),
    "trick_won": N_("{name} takes the trick"),
    "cards_drawn": N_("Cards drawn, {stock} left in the stock"),
    "trump_card_taken": N_("{name} takes the trump card {card}"),
    "second_half_dealt": N_("The second half is dealt"),
    "deal_ended": N_("Deal {deal_no} over"),
    "side_out": N_("{names} reached the limit and are out"),
    "match_ended": N_("The match is over"),
    # permanent-trump Kozel (RULES.md 4)
    "shuffled": N_("Deal {deal_no}: the deck is shuffled, {name} cuts"),
    "deck_cut": N_("{name} cuts {count} cards"),
    "redeal_asked": N_("{name} asks for a redeal"),
    "redeal_penalty": N_("Third redeal in a row: {names} take {penalty}"),
    "boast_chosen": N_("{name} chooses: {choice}"),
    "boast_given": N_("{name} is given {count} cards for the boast"),
    "laid": N_("{name} lays {count} face down for the boast"),
    "covered": N_("{name} covers with {cards}"),
    "boast_revealed": N_("The boast is turned over: {cards}"),
    "pile_won": N_("{name} wins the boast pile {cards} ({points})"),
    "boast_void": N_("Someone holds more than his share: the boast is made again"),
    "queen_caught": N_("{name} catches the queen of clubs!"),
    "lyusya": N_("Lyusya! {names} took every trick"),
    # Petukh (RULES.md 5)
    "exchanged": N_("{name} exchanges {count}"),
    "kept": N_("{name} keeps his cards"),
    "passed": N_("{name} passes"),
    "trump_swapped": N_("{name} takes the trump card {card}"),
    "trump_left": N_("{name} leaves the trump card"),
    "play_started": N_("{name} leads"),
    "boys_declared": N_("{name} shows the boys: {cards}"),
    "skipped": N_("{name} skips this trick"),
    "boys_finish": N_("{name} shows the boys {cards} and wins the match"),
    "deal_scored": N_("Deal {deal_no} over"),
    "rooster_chosen": N_("🐓 The rooster: {names}"),
    # the waiting queue (elimination)
    "queued": N_("{name} waits for a seat"),
    "unqueued": N_("{name} no longer waits for a seat"),
    "eliminated": N_("{name} gives his seat to {comer}: a new match"),
    "timeout": N_("Time ran out: a computer player moved for {name}"),
    "handed_to_bot": N_("{name} missed turns: a computer player plays for them until they are back"),
    "back": N_("{name} is back"),
}

# why a strong computer player would make the move it suggests (bot/service.py hint)
HINTS = {
    "hint_plain": N_("a sound move here"),
    "hint_lead": N_("a lead that keeps your strong cards for later"),
    "hint_take": N_("takes the trick"),
    "hint_partner": N_("puts points on your partner's trick"),
    "hint_cheap": N_("gives away the least"),
    "hint_exchange": N_("swaps weak cards for new ones"),
    "hint_keep": N_("the hand is good as it is"),
    "hint_pass": N_("sitting out costs less than this hand"),
    "hint_swap": N_("takes the face-up trump"),
    "hint_finish": N_("two jacks win the match at once"),
    "hint_declare": N_("the combination pays"),
    "hint_redeal": N_("this hand is too weak"),
    "hint_cut": N_("any cut is as good"),
}

REASONS = {
    "kick_self": N_("You cannot remove yourself: leave with /leave."),
    "not_away": N_("You are playing your seat yourself already."),
    "bad_seat": N_("There is no such seat at this table."),
    "bad_token": N_("This button is not valid."),
    "foreign_token": N_("This button belongs to another table."),
    "stale": N_("This move is no longer possible."),
    "not_your_seat": N_("You are not playing at this table."),
    "not_your_turn": N_("It is not your turn."),
    "game_over": N_("The game is over."),
    "not_started": N_("The game has not started yet."),
    "no_room": N_("There is no table here. Start one with /newgame."),
    "room_exists": N_("A table is already open here."),
    "already_started": N_("The game has already started."),
    "already_seated": N_("You are already at the table."),
    "table_full": N_("The table is full."),
    "not_seated": N_("You are not at the table."),
    "not_allowed": N_("Only the table's creator or a chat admin may do that."),
    "bad_count": N_("Not the right number of players for these rules."),
    "bad_level": N_("Unknown computer level."),
    "bad_option": N_("That option value is not allowed."),
    "bad_preset": N_("Unknown game."),
    "bad_size": N_("Not a table size these rules allow."),
    "no_bot": N_("There is no computer player to remove."),
    "not_finished": N_("The game is still on."),
    "declaration_closed": N_("Too late to declare: the trick is under way."),
    "not_a_combination": N_("That is not a combination."),
    "not_in_hand": N_("You do not hold that card."),
    "wrong_count": N_("Play as many cards as were led."),
    "cannot_beat": N_("Those cards do not beat the cards on the table."),
    "mixed_suits": N_("A lead is cards of one suit."),
    "wrong_action": N_("That move is not possible now."),
    "busy": N_("The table is busy, try again."),
    "too_many_seated": N_("Too many players are seated for that size."),
    "ace_rule": N_("You may not throw the ace of a suit not led yet."),
    "bad_cover": N_("Cover with as many non-trumps as were laid."),
    "bad_cut": N_("Cut somewhere inside the deck."),
    "bad_lay": N_("Lay one non-trump (two only if your last pair were both non-trumps)."),
    "illegal_action": N_("That move is not possible now."),
    "leader_may_not_skip": N_("The leader may not skip."),
    "may_not_finish": N_("You cannot finish with the boys now."),
    "must_follow_suit": N_("Follow suit."),
    "must_lead_ace_of_diamonds": N_("The first card of the match is the ace of diamonds."),
    "must_lead_trump_ace": N_("Lead the trump ace."),
    "must_swap": N_("The dealer must take the trump card."),
    "must_trump": N_("You have no card of the suit: play a trump."),
    "must_overtrump": N_("Play a higher trump."),
    "must_beat": N_("Play a higher card."),
    "no_cards_wanted": N_("This move takes no cards."),
    "no_exchange": N_("No exchange in this deal."),
    "no_passing": N_("You may not pass."),
    "last_may_not_pass": N_("The last player left may not pass."),
    "no_skipping": N_("No skipping in this game."),
    "no_skips_left": N_("You have skipped twice already."),
    "no_trump_lead": N_("You may not lead a trump while you hold another card."),
    "one_card": N_("Play one card."),
    "record_too_low": N_("With a record of 2 or less you may not do that."),
    "redeal_not_allowed": N_("A redeal is not allowed now."),
    "stock_too_small": N_("The stock does not hold that many cards."),
    "wrong_phase": N_("That move is not possible now."),
    "no_queue": N_("This table is not played with elimination."),
    "seat_free": N_("A seat is free: join instead."),
    "already_waiting": N_("You are already in the queue."),
    "queue_full": N_("The queue is full."),
    "not_waiting": N_("You are not in the queue."),
}

# the top of the permanent-trump ladders (RULES.md 4)
TOP_TRUMPS = {
    "kozel-hvalenyi": N_("the six of clubs"),
    "kozel-nn": N_("shamok (the six of clubs)"),
    "kozel-kocherga": N_("kocherga (the seven of clubs)"),
}

# a deal's end, worded by ``Text.deal_result``
DEAL_END_KEYS = ("deal_ended", "deal_scored")

OUTCOMES = {
    "eggs": N_("eggs"),
    "caught": N_("the queen is caught"),
    "lyusya": N_("Lyusya"),
    "redeals": N_("three redeals"),
    "void": N_("nobody won the deal"),
}

RULES_SUMMARIES = {
    "kozel": N_(
        "Classic Kozel, 36 cards, 2–4 players (4 = two teams). Hands of 4, drawing after "
        "each trick. Lead 1–4 cards of one suit; answer with as many: beat every card "
        "(higher of the suit, trump, the 6♠ shokha over everything) or throw face down. "
        "Moscow (aces and tens) and Molodka (four of a suit) may be declared at the start "
        "of a trick. Card points: A 11, 10 10, K 4, Q 3, J 2. Losers take 2 (31+), 4, or "
        "6 with no trick; 12 penalty points is out."),
    "kozel-4": N_(
        "Kozel on 4 cards: four players in two teams, 36 cards, no shokha. A card shown "
        "from the stock gives trump. Beat face up or throw face down; a player with four "
        "cards of one suit may pull the trick out of turn. 61+ wins the deal; the loser "
        "takes 2, 4 or 6; 60:60 is eggs. 12 points ends the match."),
    "kozel-60": N_(
        "Kozel to 60: 32 cards, 2–4 players each for himself, one card a trick, no duty "
        "to follow. Jacks beat every trump (J♣ > J♠ > J♥ > J♦). Card points add up "
        "across deals: the first to 60 wins."),
    "kozel-hvalenyi": N_(
        "Hvaleny Kozel: four players in two teams, 36 cards all dealt (or 32 without the "
        "7s). Permanent trumps from the top: 6♣, the queens, the jacks, then diamonds. "
        "Follow suit (trumps are a suit of their own); an ace of a suit not led yet may not "
        "be thrown. 6♣ and Q♣ in one trick end the deal: 4 eyes to the 6♣'s team. More "
        "than 60 points: 2 eyes, 91 or more: 4; 60:60 is eggs (+2 to the next deal's "
        "winner). All tricks: Lyusya. A hand of 13 points or less may ask for a redeal. "
        "First to 12 eyes wins."),
    "kozel-nn": N_(
        "Nizhny Novgorod Kozel: four players in two teams, 36 cards. Trumps from the top: "
        "6♣ (shamok), the queens, the jacks, then clubs. No trump lead while you hold "
        "another card; the A♦ leads the match. The deck is cut before each deal; from the "
        "second deal a boast (\"trousers\") comes first. Shamok catching shamka ends the "
        "deal: 4 to the caught team. Penalties: 6 with no points, 4 up to 30, 2 up to 59; "
        "60:60 doubles the next deal. A team without queens may ask for a redeal. 12 loses."),
    "kozel-kocherga": N_(
        "Kocherga: four players in two teams, 32 cards without the sixes. Trumps from the "
        "top: 7♣ (the kocherga), the queens, the jacks, then a trump suit (clubs unless "
        "set otherwise). Follow suit. The kocherga catching the other team's Q♣ ends the "
        "deal: 4 eyes. Otherwise as Hvaleny Kozel: eyes to 12, eggs, Lyusya, redeals."),
    "petukh": N_(
        "Petukh: 2–6 players each for himself, 32 cards (30 for six). Everyone starts with "
        "a record (15) and counts down; exactly 0 wins, going below 0 starts you over. "
        "5 cards each, a card turned for trump; exchange from the stock or pass; the "
        "dealer may take the trump card. Follow suit, else trump. Each trick −1; no trick "
        "+5; boys (two jacks) count when shown. The one with the most left is the rooster."),
    "petukh-25": N_(
        "Petukh from 25: the dealer's last card is trump, the trump ace must lead, you "
        "must beat when you follow and overtrump on a trump lead, you may skip a trick "
        "twice a match; no boys; a player with no trick takes +5."),
}


def option_values(preset: str) -> list[tuple[str, list[object]]]:
    """The preset's options and their allowed values (from the preset's own model)."""
    out = []
    for name, field in PRESETS[preset].options.model_fields.items():
        ann = field.annotation
        values: list[object] = [True, False] if ann is bool else list(getattr(ann, "__args__", ()))
        out.append((field.alias or name, values))
    return out


def value_title(value: object) -> str:
    """The (untranslated) title of an option value: ``True`` "on", but ``0`` is "0"."""
    if isinstance(value, (bool, str)):
        return VALUE_TITLES.get(value, str(value))
    return str(value)


KINDS = {
    "lead": N_("Lead"),
    "beat": N_("Beat"),
    "throw": N_("Throw"),
    "play": N_("Play"),
    "declare": N_("Declare"),
    "cut": N_("Cut"),
    "redeal": N_("Ask for a redeal"),
    "lay": N_("Lay face down"),
    "cover": N_("Cover"),
    "reboast": N_("Boast again"),
    "keep": N_("Keep"),
    "exchange": N_("Exchange"),
    "pass": N_("Pass"),
    "swap": N_("Take the trump for"),
    "finish": N_("Show the boys and win"),
    "skip": N_("Skip this trick"),
}


# prompts of a hand, by the view's prompt code ("cover" is worded with its count)
PROMPTS = {
    "option": N_("you may ask for a redeal"),
    "cut": N_("cut the deck"),
    "lay": N_("lay one or two cards face down for the boast"),
    "exchange": N_("exchange cards, keep your hand or pass"),
    "swap": N_("take the trump card for one of yours, or keep"),
    "choose": N_("boast again, or keep the boast tricks"),
    "keep_or_pass": N_("play this deal, or pass"),
}


class Text:
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

    def cards(self, cards: list[str] | None, count: int = 0) -> str:
        if cards is None:
            return BACK * count
        return " ".join(self.card(c) for c in cards)

    # --- lines ----------------------------------------------------------------------------

    def line(self, line: Line, table: TableView | None = None) -> str:
        template = LINES.get(line.key)
        if template is None:
            return ""
        p: dict[str, Any] = dict(line.params)
        for k in ("cards", "face_up"):
            if isinstance(p.get(k), list):
                p[k] = self.cards(p[k])
        if isinstance(p.get("card"), str):
            p["card"] = self.card(p["card"])
        if "combination" in p:
            p["combination"] = self._(COMBINATIONS.get(p["combination"], p["combination"]))
        if "preset" in p:
            p["preset"] = self._(PRESET_TITLES.get(p["preset"], p["preset"]))
        if table is not None:
            if "name" not in p and isinstance(p.get("seat"), int):
                p["name"] = self.seat_name(table, p["seat"])
            if "seats" in p and line.key in ("side_out", "rooster_chosen"):
                p["names"] = ", ".join(self.seat_name(table, s, p) for s in p["seats"])
            if "side" in p and line.key in ("lyusya", "redeal_penalty"):
                p["names"] = self.side_name(table, p["side"])
            if line.key == "shuffled" and isinstance(p.get("cutter"), int):
                p["name"] = self.seat_name(table, p["cutter"])
            if line.key == "play_started" and isinstance(p.get("leader"), int):
                p["name"] = self.seat_name(table, p["leader"])
        if "choice" in p:
            p["choice"] = self._(KINDS.get(p["choice"], p["choice"]))
        if line.key == "seats_swapped":  # seats are numbered from 1 on screen
            p["a"], p["b"] = int(p["a"]) + 1, int(p["b"]) + 1
        p.setdefault("name", "?")
        p.setdefault("names", "?")
        if line.key == "deck_cut" and isinstance(p.get("count"), int):  # "24 карты"
            template = self.n("{name} cuts {count} card", "{name} cuts {count} cards",
                              p["count"])
            return template.format(**p)
        try:
            return self._(template).format(**p)
        except (KeyError, IndexError, ValueError):
            return self._(template)

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
        return self._(PRESET_TITLES.get(table.preset, table.preset))

    def options(self, table: TableView) -> str:
        parts = []
        for k, v in table.options.items():
            parts.append(f"{self._(OPTION_TITLES.get(k, k))}: {self._(value_title(v))}")
        return " · ".join(parts)

    def lobby(self, table: TableView) -> str:
        head = f"🐐 {self.title(table)} · " + self.n(
            "{n} player", "{n} players", table.size).format(n=table.size)
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
        return "\n".join(rows)

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
        trump = SUIT.get(table.trump or "", "?")
        head = f"🐐 {self.title(table)} · " + self._("deal {n}").format(n=table.deal_no)
        head += " · " + self.trump_label(table.preset, trump)
        if table.trump_card and table.trump_mode == "last":  # the dealer's last card, shown
            head += " " + self._("(trump card {card})").format(card=self.card(table.trump_card))
        elif table.trump_card and table.stock:
            head += " " + self._("({card} under the stock)").format(card=self.card(table.trump_card))
        if table.stock:
            head += " · " + self._("stock {n}").format(n=table.stock)
        rows = [head]
        score = " · ".join(
            f"{self.side_name(table, i)} {v}" for i, v in enumerate(table.scores)
        )
        rows.append(self._("Score: {score} (to {target})").format(score=score, target=table.target))
        rows.append("")
        for s in table.seats:
            if s is None:
                continue
            rows.append(self._seat_row(table, s))
        rows.append("")
        if table.trick:
            rows.append(self._("On the table: {plays}").format(
                plays=" · ".join(self.play(table, p) for p in table.trick)))
        if table.last_trick:
            winner, plays = table.last_trick
            rows.append(self._("Last trick: {name} ({plays})").format(
                name=self.seat_name(table, winner),
                plays=" · ".join(self.cards(p.cards, p.count) for p in plays)))
        if table.queue:
            rows.append("⏳ " + self._("Waiting for a seat: {names}").format(
                names=", ".join(table.queue)))
        for ln in table.lines[-3:]:
            text = self.line(ln, table)
            if text:
                rows.append("• " + text)
        if table.finished:
            names = ", ".join(self.seat_name(table, s) for s in table.winners)
            rows.append("🏁 " + self._("Winners: {names}").format(names=names))
        elif table.deadline is not None and now is not None and table.to_move is not None:
            left = max(0, int(table.deadline - now))
            rows.append("⏳ " + self._("{name}, {seconds} s").format(
                name=self.seat_name(table, table.to_move), seconds=left))
        return "\n".join(rows)

    def _seat_row(self, table: TableView, s: SeatView) -> str:
        mark = " ▸ " + self._("to move") if s.on_move else ""
        if s.out:
            mark = " · " + self._("out")
        return f" {self.seat_name(table, s.index)}{mark}  {BACK} {s.hand_size}"

    # --- hand -----------------------------------------------------------------------------

    def prompt(self, hand: HandView) -> str:
        if hand.prompt == "lead":
            return self._("your lead (1–4 cards of one suit)") \
                if hand.table.multi_lead else self._("your lead")
        if hand.prompt == "answer":
            return self.n("answer with {n} card: beat or throw",
                          "answer with {n} cards: beat or throw", hand.need).format(n=hand.need)
        if hand.prompt == "play":
            return self._("your move")
        if hand.prompt == "declare":
            return self._("you may declare")
        if hand.prompt == "cover":
            return self.n("cover the boast with {n} card", "cover the boast with {n} cards",
                          hand.need).format(n=hand.need)
        if hand.prompt in PROMPTS:
            return self._(PROMPTS[hand.prompt])
        if hand.prompt == "over":
            return self._("the game is over")
        return self._("waiting for {name}").format(
            name=self.seat_name(hand.table, hand.table.to_move or 0))

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
        icon = {"redeal": "🔄", "pass": "🚪", "keep": "✋", "reboast": "👖", "finish": "🏆",
                "skip": "⏭"}.get(c.kind, "✔")
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
            why = self._("{why} (trial deals: {share}%)").format(why=why,
                                                               share=hint.params["share"])
        return "💡 " + self._("Hint: {move} — {why}").format(move=move, why=why)

    def choice(self, kind: str, cards: list[str]) -> str:
        return f"{self._(KINDS.get(kind, kind))} {self.cards(cards)}".strip()

    def hand(self, hand: HandView) -> str:
        trump = SUIT.get(hand.trump, "?")
        return "\n".join([
            self._("Your cards: {cards}").format(cards=self.cards(hand.cards)),
            self.trump_label(hand.table.preset, trump) + " · " + self.prompt(hand),
        ])

    def rules_card(self, preset: str, bold: bool = False) -> str:
        """A short rules card: the summary, the options and their values, player counts."""
        title = self._(PRESET_TITLES.get(preset, preset))
        rows = [f"🐐 **{title}**" if bold else f"🐐 {title}",
                self._(RULES_SUMMARIES.get(preset, preset))]
        for name, values in option_values(preset):
            shown = " / ".join(self._(value_title(v)) for v in values)
            rows.append(f"• {self._(OPTION_TITLES.get(name, name))}: {shown}")
        rows.append("• " + self._("players: {counts}").format(
            counts=", ".join(str(n) for n in PRESETS[preset].players)))
        return "\n".join(rows)

    # --- results: what a deal and a match did, and why -------------------------------

    def deal_result(self, line: Line, table: TableView) -> str:
        """A deal's end: the card points, who took which penalty (or eyes) and why
        ("49 points: +2", "no trick: +6", "the queen is caught: +4"), the score after it."""
        if line.key == "deal_scored":
            return self._petukh_result(line, table)
        p = line.params
        names = [self.side_name(table, i, p) for i in range(len(p["score"]))]
        points = " — ".join(f"{n} {v}" for n, v in zip(names, p.get("points") or [], strict=False))
        head = self._("Deal {n}: {points}").format(n=p["deal_no"], points=points)
        if p.get("outcome") in OUTCOMES:
            head += " · " + self._(OUTCOMES[p["outcome"]])
        rows = [head]
        if table.target != SIXTY:  # Kozel to 60: the card points are what the deal scores
            rows += [f"• {names[side]} — {why}" for side, why in self._deal_reasons(p)]
        score = " · ".join(f"{n} {v}" for n, v in zip(names, p["score"], strict=False))
        return "\n".join([*rows, self._("Score: {score}").format(score=score)])

    def _deal_reasons(self, p: dict[str, Any]) -> list[tuple[int, str]]:
        """Each side whose score the deal moved, and why (RULES.md 1-4: penalties, eyes)."""
        outcome = p.get("outcome")
        points, tricks = p.get("points") or [], p.get("tricks") or []
        out = []
        for side, n in enumerate(p.get("scored") or []):
            if not n:
                continue
            if outcome in ("caught", "lyusya", "redeals"):
                why = self._(OUTCOMES[outcome])
            elif outcome == "tie":
                why = "60:60"
            elif side < len(tricks) and not tricks[side]:
                why = self._("no trick")
            elif side < len(points):
                why = self.n("{n} point", "{n} points", points[side]).format(n=points[side])
            else:
                why = self._(OUTCOMES.get(str(outcome), str(outcome)))
            if p.get("doubled"):
                why += ", " + self._("after the eggs")
            out.append((side, f"{why}: {signed(n)}"))
        return out

    def _petukh_result(self, line: Line, table: TableView) -> str:
        """RULES.md 5: what the deal did to each record, and why."""
        p = line.params
        rows = [self._("Deal {n} over").format(n=p["deal_no"])]
        boys = {int(b[0]): b for b in p.get("boys") or []}
        for seat in range(len(p["records"])):
            why = self._petukh_row(p, seat, boys.get(seat))
            rows.append(f"• {self.seat_name(table, seat, p)} — {why}")
        return "\n".join(rows)

    def _petukh_row(self, p: dict[str, Any], seat: int, boys: list[Any] | None) -> str:
        """One record's change in parts: "2 tricks: −2, boys ♥♦: −5 → 8"."""
        record = p["records"][seat]
        if seat in (p.get("passed") or []):
            return f"{self._('passed')} → {record}"
        finisher = p.get("finisher")
        if finisher is not None:  # the deal is not scored: the finisher's record goes to 0
            return f"{self._('boys finish')} → {record}" if finisher == seat else str(record)
        tricks = p["tricks"][seat]
        bonus = (p.get("bonus") or [0] * (seat + 1))[seat]
        parts = []
        if tricks:
            parts.append(self.n("{n} trick", "{n} tricks", tricks).format(n=tricks)
                         + f": {signed(-tricks)}")
        if boys is not None:
            suits = "".join(SUIT.get(x, x) for x in str(boys[2]))
            parts.append(self._("boys {suits}").format(suits=suits) + f": {signed(int(boys[3]))}")
        elif not tricks:  # the no-trick fine (0 above the cap)
            parts.append(f"{self._('no trick')}: {signed(p['changes'][seat] - bonus)}")
        if bonus:
            parts.append(f"{self._('ace of spades')}: {signed(bonus)}")
        text = ", ".join(parts)
        if seat in (p.get("overshoot") or []):
            return text + ", " + self._("overshoot: back to {start}").format(start=record)
        return f"{text} → {record}"

    def match_result(self, line: Line, table: TableView, extra: list[Line] | None = None,
                     legend: bool = False) -> str:
        """The match's end from its own line (the table may already show the next match):
        the winners and the losers (Kozel's kozly; Petukh's others, the rooster and the
        debts), each side with its score; ``legend``: each side with its chart colour."""
        p = line.params
        extra = extra or []
        scores = list(p.get("score", table.scores))
        winners = set(p.get("winners", table.winners))
        sides = table.sides if len(table.sides) == len(scores) else [[i] for i in
                                                                     range(len(scores))]
        won: list[str] = []
        lost: list[str] = []
        for i, seats in enumerate(sides):
            names = ", ".join(self.seat_name(table, s, p) for s in seats)
            mark = LEGEND[i % len(LEGEND)] + " " if legend else ""
            (won if winners & set(seats) else lost).append(f"{mark}{names} — {scores[i]}")
        rooster = next((ln for ln in extra if ln.key == "rooster_chosen"), None)
        records = rooster is not None or table.target == 0
        rows = ["🏁 " + self._("Match over!"), self._("Won: {sides}").format(sides=" · ".join(won))]
        if lost:
            rows.append(self._(N_("Others: {sides}") if records else N_("Kozly: {sides}"))
                        .format(sides=" · ".join(lost)))
        if rooster is not None:
            rows.append(self.line(rooster, table))
            debts = self._debts(rooster, table)
            if debts:
                rows.append(debts)
        rows += [self.line(ln, table) for ln in extra if ln.key == "eliminated"]
        return "\n".join([*rows, self._("Series in this chat: /series")])

    def _debts(self, rooster: Line, table: TableView) -> str:
        """RULES.md 5: each loser owes each winner his points left."""
        p = rooster.params
        debts = [f"{self.seat_name(table, a, p)} → {self.seat_name(table, b, p)} {n}"
                 for a, b, n in p.get("debts") or [] if n]
        return self._("Debts: {debts}").format(debts=", ".join(debts)) if debts else ""

    # --- records: series, the leaderboard, a person's numbers ---------------------------

    def series(self, rows: list[dict[str, Any]]) -> str:
        """/series: one series per game and line-up, most played first."""
        if not rows:
            return self._("No finished matches in this chat yet.")
        lines = [self._("Series in this chat:")]
        for r in rows[:10]:
            sides = ["+".join(side) for side in r["sides"]]
            wins = r["wins"]
            if len(sides) == 2:
                body = f"{sides[0]} {wins[0]} : {wins[1]} {sides[1]}"
            else:
                body = " · ".join(f"{n} {w}" for n, w in zip(sides, wins, strict=False))
            played = self.n("{n} match", "{n} matches", r["played"]).format(n=r["played"])
            lines.append(f"• {self._(PRESET_TITLES.get(r['preset'], r['preset']))}: "
                         f"{body} ({played})")
        return "\n".join(lines)

    def top(self, rows: list[dict[str, Any]]) -> str:
        """/top: people by rating with their matches; those with fewer than
        ``MIN_MATCHES`` apart; the computer levels that played here."""
        people = [r for r in rows if not r.get("computer")]
        if not people:
            return self._("No finished matches in this chat yet.")
        ranked = [r for r in people if r["ranked"]]
        lines = ["🏆 " + self._("Leaderboard by rating:")]
        lines += [f"{i}. {r['name']} — {r['rating']:.1f} · {self._played_won(r)}"
                  for i, r in enumerate(ranked[:15], start=1)]
        if not ranked:
            lines.append(self._("Nobody is ranked yet."))
        waiting = [r for r in people if not r["ranked"]]
        if waiting:
            lines.append(self.n("Not ranked yet (fewer than {n} match):",
                                "Not ranked yet (fewer than {n} matches):",
                                MIN_MATCHES).format(n=MIN_MATCHES))
            lines.append(", ".join(f"{r['name']} ({r['played']})" for r in waiting[:20]))
        levels = [f"{self._(level_word(r['name']) or r['name'])} {r['rating'] or 0:.1f} "
                  f"({r['played']})" for r in rows if r.get("computer")]
        if levels:
            lines.append("🤖 " + self._("Computer players: {levels}").format(
                levels=" · ".join(levels)))
        return "\n".join(lines)

    def _played_won(self, r: dict[str, Any]) -> str:
        return self.n("{played} match, won {won} ({rate})", "{played} matches, won {won} ({rate})",
                      r["played"]).format(played=r["played"], won=r["won"],
                                          rate=f"{r['rate'] or 0:.0%}")

    def stats(self, name: str, profile: dict[str, Any] | None) -> str:
        """/stats: a person's matches, wins, win rate, ratings, favourite game, streaks."""
        if not profile:
            return self._("{name} has not finished a match yet.").format(name=name)
        rows = [f"📊 {name}", self._played_won(profile)]
        overall, here = profile.get("rating"), profile.get("chat_rating")
        if overall is None:
            rows.append(self._("Rating: not yet"))
        elif here is None:
            rows.append(self._("Rating: {overall} overall").format(overall=f"{overall:.1f}"))
        else:
            rows.append(self._("Rating: {overall} overall, {chat} in this chat").format(
                overall=f"{overall:.1f}", chat=f"{here:.1f}"))
        game = profile.get("favourite")
        if game:
            rows.append(self._("Favourite game: {game}").format(
                game=self._(PRESET_TITLES.get(game, game))))
        best = int(profile.get("best_streak") or 0)
        rows.append(self.n("Best streak: {n} win in a row (now {now})",
                           "Best streak: {n} wins in a row (now {now})", best).format(
            n=best, now=int(profile.get("streak") or 0)))
        return "\n".join(rows)

    def chart_setting(self, on: bool) -> str:
        state = self._(VALUE_TITLES[on])
        return "📈 " + self._("Score chart after a long match: {state}").format(state=state)


SIXTY = 60  # the target of Kozel to 60: card points add up to it


def signed(n: int) -> str:
    """A change of a score as players write it: +2, −5, 0."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "0"


def match_chart(table: TableView, progress: list[list[int]]) -> bytes | None:
    """The match's score deal by deal as a PNG (one line a side, ``LEGEND``'s colours), or
    None when the match was too short to need one. Petukh's lines start at the start record."""
    if not progress or not worth_a_chart(progress):
        return None
    start = int(table.info.get("start", 0)) if table.target == 0 else 0
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
