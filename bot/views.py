"""Platform-neutral views: what a group sees (the table) and what one seat sees (the hand).

Views hold card texts (``"10H"``), locale keys and parameters, never sentences: adapters
word and draw them. The table view is built from ``observe(match, None)`` only, so it holds
no hidden card by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from bot.house import changed_options
from bot.room import LOBBY, Room, Seat
from bot.tokens import bare, make_token, moment
from engine.actions import Action
from engine.cards import CARD_TEXT, SUIT_LETTERS, Card
from engine.events import Event
from engine.game import Game
from engine.observation import Extras, Observation, SeenPlay, observe
from engine.presets import PRESETS, players_allowed, trump_ladder


@dataclass(frozen=True)
class SeatView:
    index: int
    name: str
    user: str | None
    computer: bool  # a computer player (or a person's seat it has taken over)
    auto: bool
    hand_size: int
    on_move: bool
    may_act: bool
    out: bool  # the seat's side is out of the match (elimination)
    level: str | None = None  # a computer player's level (easy, normal, hard...)


@dataclass(frozen=True)
class PlayView:
    seat: int
    kind: str  # lead | beat | throw | play
    cards: list[str] | None  # None: face down
    count: int


@dataclass(frozen=True)
class Line:
    """One event worded by the adapter: a locale key and its parameters."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TableView:
    room: str
    preset: str
    options: dict[str, Any]
    state: str
    size: int
    seats: list[SeatView | None]
    creator: str
    min_players: int
    can_start: bool
    deal_no: int = 0
    dealer: int | None = None
    trump: str | None = None
    trump_card: str | None = None
    stock: int = 0
    trick: list[PlayView] = field(default_factory=list)
    winning_seat: int | None = None
    declared: str | None = None
    sides: list[list[int]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    target: int = 12
    last_trick: tuple[int, list[PlayView]] | None = None
    lines: list[Line] = field(default_factory=list)
    deadline: float | None = None
    to_move: int | None = None
    finished: bool = False
    winners: list[int] = field(default_factory=list)
    gen: int = 0
    phase: str = "play"
    extras: Extras | None = None  # a family's public extras (the engine's, typed)
    score_start: int = 0  # the score the match's scores start from (Petukh: the start record)
    queue: list[str] = field(default_factory=list)  # names waiting for a seat (elimination)
    partnership: bool = False  # two teams: ``sides`` are the teams (lobby included)
    multi_lead: bool = False  # leads of several cards (kozel, kozel-4)
    players_allowed: list[int] = field(default_factory=list)  # table sizes the preset allows
    bot_level: str = "normal"  # the level of computer players seated without one
    # how the trump is shown: "turn" (the turned card under the stock), "middle" (shown from
    # the middle of the stock), "last" (the dealer's last card, shown), "halves", "fixed"
    trump_mode: str = ""
    vote: VoteView | None = None  # a player asked to end the match: the others may agree
    # a match a player gave up: his name (the others' sides won)
    abandoned: str | None = None
    changed: list[str] = field(default_factory=list)  # options not the game's own (issue 36.1)


@dataclass(frozen=True)
class VoteView:
    """A request to end the match: who asked, who agreed so far, who still may, until when."""

    by: str  # the asker's name
    agreed: int
    needed: int
    waiting: list[str]  # user ids whose agreement is still missing
    until: float


@dataclass(frozen=True)
class Choice:
    """One legal action as a button: a kind, its cards, their hand positions (0 for a move
    without cards: a button of its own), the token; ``number`` for a cut."""

    kind: str
    cards: list[str]
    mask: int
    token: str
    number: int = 0


@dataclass(frozen=True)
class HandView:
    room: str
    seat: int
    cards: list[str]  # sorted
    trump: str
    on_move: bool
    # lead | answer | play | wait | declare | option (a redeal request may be made) | cut |
    # lay | cover | exchange | swap | choose (boast again or keep) | over
    prompt: str
    need: int  # cards to play when answering (0 otherwise)
    choices: list[Choice]
    table: TableView
    trick: int = 0  # the trick number (selections belong to one trick)
    # card -> reason code, for each card the seat on move may not play now on its own
    why_not: dict[str, str] = field(default_factory=dict)
    single: Choice | None = None  # the only legal choice, when there is exactly one
    hint_allowed: bool = False  # a practice game: every other seat is a computer player
    # the moment of play the hand shows (``bot.tokens.moment``): a card picked in it
    # belongs to this moment only (``bot.tokens.picked``)
    moment: str = ""
    # the hand's trumps from the weakest to the strongest (a player reads them so, the
    # strongest at the right); the other cards keep the engine's order
    trumps: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Hint:
    """What a strong computer player would do: a choice of the hand, and why (a locale key
    and its parameters)."""

    choice: Choice
    reason: str
    params: dict[str, Any] = field(default_factory=dict)


def _plays(ps: tuple[SeenPlay, ...]) -> list[PlayView]:
    return [PlayView(s, k, None if cs is None else [CARD_TEXT[c] for c in cs], n) for s, k, cs, n in ps]


def table_view(room: Room, match: Game | None, now: float, deadline: float | None = None) -> TableView:
    """``deadline``: the countdown to show (the service's: the person on move's own time,
    not the moment a computer player may act out of turn, which would tell of its hand)."""
    spec = PRESETS[room.preset]
    obs: Observation | None = observe(match, None) if match is not None else None
    rules = room.rules  # the lobby's too: for its size, the teams it will play in
    seats = _seat_views(room, obs)
    base: dict[str, Any] = {
        "room": room.id,
        "preset": room.preset,
        "options": room.options,
        "state": room.state,
        "size": room.size,
        "seats": seats,
        "creator": room.creator,
        "min_players": min(spec.players),
        "can_start": room.state == LOBBY and room.valid_count(room.occupied),
        "lines": [Line(e["key"], e.get("params", {})) for e in room.events],
        "gen": room.gen,
        "queue": [q["name"] for q in room.queue],
        "sides": [list(rules.side_seats(s)) for s in range(rules.sides)],
        "partnership": rules.partnership,
        "multi_lead": rules.multi,
        "players_allowed": list(players_allowed(room.preset, room.options)),
        "bot_level": room.bot_level,
        "trump_mode": rules.trump_mode,
        "vote": _vote_view(room, now),
        "abandoned": (room.result or {}).get("abandoned"),
        "changed": changed_options(room.preset, room.options),
    }
    if obs is None:
        return TableView(**base)
    target = {"sixty": 60, "halves": 60, "record": 0}.get(rules.scoring, 12)
    return TableView(
        **base,
        deal_no=obs.deal_no,
        dealer=obs.dealer,
        trump=SUIT_LETTERS[obs.trump],
        trump_card=None if obs.trump_card is None else CARD_TEXT[obs.trump_card],
        stock=obs.stock,
        trick=_plays(obs.trick),
        winning_seat=obs.win_seat if obs.trick else None,
        declared=obs.declared,
        scores=list(obs.scores),
        target=target,
        last_trick=None if obs.last_trick is None else (obs.last_trick[0], _plays(obs.last_trick[1])),
        deadline=deadline if deadline is not None else room.deadline,
        to_move=None if obs.finished else obs.to_move,
        finished=obs.finished,
        winners=list(obs.winners),
        phase=obs.phase,
        extras=obs.extras,
        score_start=0 if obs.extras is None else obs.extras.score_start,
    )


def _vote_view(room: Room, now: float) -> VoteView | None:
    vote = room.vote
    if vote is None or room.state != "playing" or float(vote.get("until", 0)) <= now:
        return None
    needed = room.voters(vote["by"])
    yes = [u for u in vote.get("yes", []) if u in needed]
    return VoteView(
        str(vote["name"]), len(yes), len(needed), [u for u in needed if u not in yes], vote["until"]
    )


def _seat_views(room: Room, obs: Observation | None) -> list[SeatView | None]:
    return [None if s is None else _seat_view(room, i, s, obs) for i, s in enumerate(room.seats)]


def _seat_view(room: Room, i: int, s: Seat, obs: Observation | None) -> SeatView:
    seat = SeatView(
        index=i,
        name=s.name,
        user=s.user,
        computer=s.computer,
        auto=s.auto,
        hand_size=0,
        on_move=False,
        may_act=False,
        out=False,
        level=s.level if s.computer else None,
    )
    if obs is None:  # the lobby
        return seat
    return replace(
        seat,
        hand_size=obs.hand_sizes[i] if i < len(obs.hand_sizes) else 0,
        on_move=not obs.finished and obs.to_move == i,
        may_act=i in obs.to_act,
        out=obs.out[room.rules.side_of(i)],
    )


def token_secret(match: Game) -> str:
    """What keys a hand's fingerprint: a secret of the match (its hidden seed, and what
    makes old buttons of the same moment stale)."""
    return match.token_secret()


# At most this many cut buttons (the engine allows a cut anywhere).
CUT_CHOICES = 3

# The prompt of a seat on move outside trick play, from the kinds of its legal actions (the
# first kind of this table it may make): a family's phase shows in what the engine allows,
# never by its name here.
_DECISION_PROMPTS = (
    ("cut", "cut"),
    ("exchange", "exchange"),
    ("swap", "swap"),
    ("reboast", "choose"),  # boast again or keep
    ("lay", "lay"),
    ("cover", "cover"),
    # the exchange without one (six players, or a record of 1 at the table)
    ("keep", "keep_or_pass"),
    ("pass", "keep_or_pass"),
)


def hand_view(room: Room, match: Game, seat: int, now: float, deadline: float | None = None) -> HandView:
    """The seat's hand with its legal actions as choices (tokens)."""
    obs = observe(match, seat)
    hand = obs.hand
    legal = _shown_actions(match.legal_actions(seat)) if not obs.finished else []
    choices = _choices(room, match, obs, seat, legal)
    on_move = not obs.finished and obs.to_move == seat
    prompt, need = _prompt(room, obs, seat, on_move, {c.kind for c in choices})
    others = [s for i, s in enumerate(room.seats) if i != seat]
    return HandView(
        room=room.id,
        seat=seat,
        cards=[CARD_TEXT[c] for c in hand],
        trump=SUIT_LETTERS[obs.trump],
        on_move=on_move,
        prompt=prompt,
        need=need,
        choices=choices,
        table=table_view(room, match, now, deadline),
        trick=obs.moment,
        why_not=_why_not(match, seat, hand, legal) if on_move else {},
        single=choices[0] if len(choices) == 1 else None,
        hint_allowed=bool(others) and all(s is not None and s.bot is not None for s in others),
        moment=moment(room.gen, obs.deal_no, obs.moment),
        trumps=_trumps(room, [CARD_TEXT[c] for c in hand], obs.trump),
    )


def _trumps(room: Room, cards: list[str], suit: int) -> list[str]:
    """The trumps among ``cards``, weakest first (``suit``: the trump suit)."""
    if room.rules.trump_mode == "fixed":
        # RULES.md 4: the permanent trumps, high to low, as the engine ranks them
        ladder = [CARD_TEXT[c] for c in trump_ladder(room.preset, suit)]
        strength = {c: len(ladder) - i for i, c in enumerate(ladder)}
    else:
        # a trump suit: its cards in the engine's order (by strength), the 6♠ shokha above all
        letter = SUIT_LETTERS[suit]
        strength = {c: i for i, c in enumerate(cards) if c[-1:] == letter}
        if room.options.get("shokha") and "6S" in cards:
            strength["6S"] = len(cards) + 1
    return sorted((c for c in cards if c in strength), key=strength.__getitem__)


def _shown_actions(legal: list[Action]) -> list[Action]:
    """The legal actions that get a button: all but a few evenly spread cuts (a third, a
    half, two thirds of the deck)."""
    cuts = [a for a in legal if a.kind == "cut"]
    if len(cuts) <= CUT_CHOICES:
        return legal
    keep = {cuts[len(cuts) * (i + 1) // (CUT_CHOICES + 1)] for i in range(CUT_CHOICES)}
    return [a for a in legal if a.kind != "cut" or a in keep]


def _choices(room: Room, match: Game, obs: Observation, seat: int, legal: list[Action]) -> list[Choice]:
    choices = []
    secret = token_secret(match)
    for a in legal:
        tok = make_token(room.id, room.gen, obs.deal_no, obs.moment, seat, obs.hand, a, secret=secret)
        if a.kind == "cut":
            choices.append(Choice("cut", [], 0, str(tok), number=a.cards[0]))
            continue
        mask = 0 if bare(a.kind) else tok.mask
        choices.append(Choice(a.kind, [CARD_TEXT[c] for c in a.cards], mask, str(tok)))
    return choices


def _prompt(room: Room, obs: Observation, seat: int, on_move: bool, kinds: set[str]) -> tuple[str, int]:
    """What the hand asks for, and how many cards it needs (answering, covering)."""
    if obs.finished:
        return "over", 0
    if not on_move:
        return ("wait" if not kinds else "declare" if kinds == {"declare"} else "option"), 0
    prompt = next((p for kind, p in _DECISION_PROMPTS if kind in kinds), None)
    if prompt == "cover":  # a card on each of the boaster's cards: how many are left
        laid = next((n for _s, k, _cs, n in obs.trick if k == "lay"), 0)
        placed = sum(n for s, k, _cs, n in obs.trick if k == "cover" and s == seat)
        return prompt, laid - placed
    if prompt is not None:
        return prompt, 0
    if not obs.trick:
        return "lead", 0
    if room.rules.multi:
        return "answer", len(obs.win_cards)
    return "play", 0


def _why_not(match: Game, seat: int, hand: tuple[Card, ...], legal: list[Action]) -> dict[str, str]:
    """Why each card that cannot be played alone now cannot, where moves are one card of one
    kind (a toast for a tapped card); the engine's own refusal code."""
    kinds = {a.kind for a in legal if a.cards}
    if len(kinds) != 1 or any(len(a.cards) != 1 for a in legal if a.cards):
        return {}
    kind = kinds.pop()
    playable = {a.cards[0] for a in legal if a.cards}
    out = {}
    for c in hand:
        if c not in playable:
            out[CARD_TEXT[c]] = match.check(seat, Action(kind, (c,))) or "wrong_action"
    return out


def event_lines(room: Room, events: list[Event]) -> list[Line]:
    """Engine events as locale lines with seat names (public events only)."""
    out = []
    for e in events:
        params = e.to_json()
        key = params.pop("event")
        seat = params.get("seat")
        if isinstance(seat, int) and seat < len(room.seats) and room.seats[seat] is not None:
            params["name"] = room.seats[seat].name  # type: ignore[union-attr]
        if key in NAMED_AT_THE_TIME:
            # the names as they are now: an elimination may seat someone else before these
            # lines are drawn
            params["seat_names"] = [s.name if s is not None else "?" for s in room.seats]
        out.append(Line(key, params))
    return out


# lines about a deal's or match's end, worded with the names of the seats at that moment
NAMED_AT_THE_TIME = frozenset({"deal_ended", "deal_scored", "match_ended", "rooster_chosen", "side_out"})
