"""One table of action kinds (issue 16.2): ``engine.actions.ACTION_KINDS`` gives the letters
of the stored logs (``engine.codec``) and of the buttons' tokens (``bot.tokens``)."""

from __future__ import annotations

from bot.tokens import bare, make_token, parse_token
from engine.actions import ACTION_KINDS, KINDS, NUMBER_KINDS, Action
from engine.codec import pack_action, unpack_action


def test_every_kind_has_one_letter_for_logs_and_tokens() -> None:
    assert tuple(ACTION_KINDS) == KINDS
    assert sorted(NUMBER_KINDS) == ["cut"]
    hand = (0, 5, 9, 20)
    for kind, spec in ACTION_KINDS.items():
        cards = (17,) if spec.takes == "number" else (5,) if spec.takes == "cards" else ()
        act = Action(kind, cards)
        packed = pack_action(2, act)
        assert packed[1] == spec.code and unpack_action(packed) == (2, act)
        token = make_token("r1", 3, 1, 4, 2, hand, act, secret="s")
        assert str(token).split(".")[-1][0] == spec.code
        assert parse_token(str(token)) == token
        assert bare(kind) == (spec.takes == "none")


def test_an_exchange_button_of_the_old_letter_still_reads() -> None:
    new = make_token("r1", 3, 1, 4, 2, (0, 5, 9, 20), Action("exchange", (5, 9)), secret="s")
    head, act = str(new).rsplit(".", 1)
    assert act.startswith("x")
    old = f"{head}.e{act[1:]}"
    assert parse_token(old) == new


def test_a_hand_asks_for_a_decision_from_its_action_kinds_each_worded() -> None:
    """Issue 16.3: the hand view's prompt outside trick play comes from the kinds of the
    seat's legal actions (no family's phase name); each kind is the engine's and each prompt
    is worded in every adapter's text."""
    from adapters.common.render import PROMPTS
    from bot.views import _DECISION_PROMPTS

    assert {kind for kind, _p in _DECISION_PROMPTS} <= set(ACTION_KINDS)
    assert {p for _k, p in _DECISION_PROMPTS} - {"cover"} <= set(PROMPTS)
