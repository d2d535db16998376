"""The words of the views, untranslated (gettext marks them; ``Text`` translates): games,
options, event lines, refusal reasons, move kinds, prompts. Shared by every adapter."""

from __future__ import annotations

from adapters.common.i18n import N_
from bot.results import DEAL_END_KEYS as RESULT_DEAL_KEYS
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
    "cancel_asked": N_("{name} asks to end the match"),
    "cancel_agreed": N_("{name} agrees to end the match"),
    "abandoned": N_("{name} gives up: the match is lost for their side"),
    "deal_started": N_("Deal {deal_no}"),
    "led": N_("{name} leads {cards}"),
    "declared": N_("{name} declares {combination}: {cards}"),
    "cards_returned": N_("The cards on the table go back to their owners"),
    "beaten": N_("{name} beats with {cards}"),
    "thrown": N_("{name} throws {count} face down"),
    # a replay of an ended match shows the cards that went face down (issue 36.4)
    "replay_thrown": N_("{name} throws {cards} face down"),
    "replay_laid": N_("{name} lays {cards} face down for the boast"),
    "replay_exchanged": N_("{name} exchanges {cards}"),
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
    "already_signed": N_("You are signed up already."),
    "not_signed": N_("You are not in the tournament."),
    "no_tournament": N_("There is no tournament here now. Open one with /tournament."),
    "tournament_exists": N_("A tournament is already on in this chat."),
    "too_few": N_("Too few people have signed up."),
    "bad_rounds": N_("Not a number of rounds a tournament may have."),
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
    "store_full": N_("The bot is short of memory and could not save that: nothing changed. Try again later."),
    "too_many_seated": N_("Too many players are seated for that size."),
    "already_asked": N_("Asked already: the others agree with the button on the table."),
    "no_vote": N_("Nobody is asking to end the match now."),
    "too_many_hints": N_("That is a lot of hints: try the next one in a minute."),
    "too_many_lobbies": N_("You have opened enough tables for now: play at one or close it first."),
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
    "must_trump_no_higher": N_("You have no higher card of the suit: play a trump."),
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

# a deal's end, worded by ``Text.deal_result`` (the service's keys: bot/results.py)
DEAL_END_KEYS = RESULT_DEAL_KEYS

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
        "6 with no trick; 12 penalty points is out."
    ),
    "kozel-4": N_(
        "Kozel on 4 cards: four players in two teams, 36 cards, no shokha. A card shown "
        "from the stock gives trump. Beat face up or throw face down; a player with four "
        "cards of one suit may pull the trick out of turn. 61+ wins the deal; the loser "
        "takes 2, 4 or 6; 60:60 is eggs. 12 points ends the match."
    ),
    "kozel-60": N_(
        "Kozel to 60: 32 cards, 2–4 players each for himself, one card a trick, no duty "
        "to follow. Jacks beat every trump (J♣ > J♠ > J♥ > J♦). Card points add up "
        "across deals: the first to 60 wins."
    ),
    "kozel-hvalenyi": N_(
        "Hvaleny Kozel: four players in two teams, 36 cards all dealt (or 32 without the "
        "7s). Permanent trumps from the top: 6♣, the queens, the jacks, then diamonds. "
        "Follow suit (trumps are a suit of their own); an ace of a suit not led yet may not "
        "be thrown. 6♣ and Q♣ in one trick end the deal: 4 eyes to the 6♣'s team. More "
        "than 60 points: 2 eyes, 91 or more: 4; 60:60 is eggs (+2 to the next deal's "
        "winner). All tricks: Lyusya. A hand of 13 points or less may ask for a redeal. "
        "First to 12 eyes wins."
    ),
    "kozel-nn": N_(
        "Nizhny Novgorod Kozel: four players in two teams, 36 cards. Trumps from the top: "
        "6♣ (shamok), the queens, the jacks, then clubs. No trump lead while you hold "
        "another card; the A♦ leads the match. The deck is cut before each deal; from the "
        'second deal a boast ("trousers") comes first. Shamok catching shamka ends the '
        "deal: 4 to the caught team. Penalties: 6 with no points, 4 up to 30, 2 up to 59; "
        "60:60 doubles the next deal. A team without queens may ask for a redeal. 12 loses."
    ),
    "kozel-kocherga": N_(
        "Kocherga: four players in two teams, 32 cards without the sixes. Trumps from the "
        "top: 7♣ (the kocherga), the queens, the jacks, then a trump suit (clubs unless "
        "set otherwise). Follow suit. The kocherga catching the other team's Q♣ ends the "
        "deal: 4 eyes. Otherwise as Hvaleny Kozel: eyes to 12, eggs, Lyusya, redeals."
    ),
    "petukh": N_(
        "Petukh: 2–6 players each for himself, 32 cards (30 for six). Everyone starts with "
        "a record (15) and counts down; exactly 0 wins, going below 0 starts you over. "
        "5 cards each, a card turned for trump; exchange from the stock or pass; the "
        "dealer may take the trump card. Follow suit, else trump. Each trick −1; no trick "
        "+5; boys (two jacks) count when shown. The one with the most left is the rooster."
    ),
    "petukh-25": N_(
        "Petukh from 25: the dealer's last card is trump, the trump ace must lead, you "
        "must beat when you follow and overtrump on a trump lead, you may skip a trick "
        "twice a match; no boys; a player with no trick takes +5."
    ),
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
