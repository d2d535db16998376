"""setup.py compiles the search's playout path with mypyc (``COMPILED``); these tests keep the
compiled modules honest.

Stories: a compiled module is built from its source as it is now (Python finds a compiled
module before its source, so a stale one would run in its place); the compiled search
thinks exactly as the plain Python one (the same moves, values and playouts for the same
seed and iteration budget, in every preset with a search); the compiled matches of every
family play the same matches as their sources through the ``Game`` API, and their copies
keep every field.
"""

from __future__ import annotations

import ast
import copy as copy_module
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.presets import SEARCH_TABLES

ROOT = Path(__file__).resolve().parents[2]


def compiled_paths() -> list[str]:
    """setup.py's ``COMPILED`` list, read without running setup.py."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "COMPILED":
            value = ast.literal_eval(node.value)
            assert isinstance(value, list)
            return [str(p) for p in value]
    raise AssertionError("setup.py has no COMPILED list")


# Seeded thoughts of every preset with a search, printed as JSON: run here, and in a
# process that imports the project's modules from their sources only (PURE).
THOUGHTS = """
import json, random
from engine.players.bots import RulesBot
from engine.registry import new_match
import pytest

from engine.presets import SEARCH_TABLES, make_rules
from engine.players.search import think

out = []
for preset, players in SEARCH_TABLES:
    for seed in (1, 2):
        match = new_match(make_rules(preset, players, {}), seed=seed)
        rng = random.Random(seed)
        for _ in range(3 + 5 * seed):
            seat = match.to_act()[0]
            legal = match.legal_actions(seat)
            match.apply(seat, RulesBot().choose(match.observe(seat), legal, rng, True) or legal[0])
        seat = match.to_act()[0]
        t = think(match, seat, random.Random(seed), iterations=120)
        out.append([preset, players, seed, repr(t.action), t.value, t.runner_up, t.playouts, t.reason])
print(json.dumps(out))
"""

# Seeded random matches of every preset (the drawing family at every table size and option
# value, the permanent-trump family at each option value, Petukh at several; 40 deals at
# most) through the ``Game`` API (``engine.simulate.step``), printed as JSON:
# each deal's result and actions, and the final state
MATCHES = """
import json, random
from engine.players.bots import RandomBot
from engine.presets import PRESETS, make_rules
from engine.registry import new_match
from engine.simulate import step

configs = [
    ("kozel", n, {"shokha": shokha, "tie": tie})
    for n in (2, 3, 4) for shokha in (True, False) for tie in ("both_two", "eggs", "eggs_double")
]
configs += [("kozel-4", 4, {})] + [("kozel-60", n, {}) for n in (2, 3, 4)]
configs += [("kozel-60", 4, {"deal": "halves"})]
configs += [
    ("kozel-hvalenyi", 4, {"deck": 36, "lyusya": "match"}),
    ("kozel-hvalenyi", 4, {"deck": 32, "lyusya": "reset"}),
    ("kozel-nn", 4, {}),
    ("kozel-kocherga", 4, {"trump_suit": "spades", "ace_rule": True, "lyusya": "reset"}),
    ("kozel-kocherga", 4, {"trump_suit": "diamonds", "ace_rule": False, "lyusya": "match"}),
]
configs += [
    ("petukh", 4, {}),
    ("petukh", 6, {}),
    ("petukh", 3, {"deck": 36, "trump_swap": "must", "must_beat": True, "spade_ace": True}),
    ("petukh", 5, {"boys_table": "thirty", "crooked_boys": 3, "lead_trump_ace": True}),
    ("petukh-25", 4, {}),
    ("petukh-25", 2, {"deck": 36}),
]
assert {p for p, _n, _o in configs} == set(PRESETS)
out = []
for preset, players, options in configs:
    for seed in (1, 2):
        rules = make_rules(preset, players, options)
        match, rng, actions = new_match(rules, seed=seed), random.Random(seed), 0
        while not match.finished and match.deal_no <= 40:
            step(match, [RandomBot()] * players, rng)
            actions += 1
        deals = len(match.history)
        records = [[r.dealer, r.deck, r.trump_card, r.actions, r.result] for r in match.history]
        out.append([preset, players, options, seed, deals, actions, match.to_state(), records])
print(json.dumps(out))
"""

# sources only: no editable build's compiled modules (engine.compiled), and an import hook for
# the project's own folders that knows no extension module beside a source (a wheel's layout)
PURE_ENV = {**os.environ, "KOZEL_PURE_PYTHON": "1"}
PURE = f"""
import importlib.machinery as m, sys
_sources = m.FileFinder.path_hook((m.SourceFileLoader, m.SOURCE_SUFFIXES))
_root, _engine = {str(ROOT)!r}, {str(ROOT / "engine")!r}
def _hook(path):
    if path == _root or path == _engine or path.startswith(_engine + "/"):
        return _sources(path)
    raise ImportError(path)
sys.path_hooks.insert(0, _hook)
sys.path_importer_cache.clear()
sys.path.insert(0, {str(ROOT)!r})
import engine.players.search
assert engine.players.search.__file__.endswith(".py"), engine.players.search.__file__
"""


def fields_set(module: str, name: str, method: str | None = None) -> set[str]:
    """The fields a class of ``engine.<module>`` sets (``self.X = ...``), read from its
    source: in all of its methods, or in ``method`` alone (a compiled class has no
    ``__dict__`` to list them)."""
    source = ast.parse((ROOT / "engine" / (module.replace(".", "/") + ".py")).read_text())
    found: ast.AST = next(n for n in source.body if isinstance(n, ast.ClassDef) and n.name == name)
    if method is not None:
        found = next(n for n in ast.walk(found) if isinstance(n, ast.FunctionDef) and n.name == method)
    return {
        node.attr
        for node in ast.walk(found)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def test_compiled_modules_are_built_from_their_sources() -> None:
    """Each module of ``COMPILED`` runs as plain Python, or compiled from its source as it is
    now: an editable install's compiled modules are used only while the manifest's hash of
    every source holds (``engine.compiled``)."""
    from engine.compiled import BUILT, stale_sources

    paths = compiled_paths()
    assert paths
    for path in paths:
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        built = Path(str(module.__file__))
        assert (ROOT / path).exists(), path
        if built.suffix == ".py":
            continue
        assert built.is_relative_to(BUILT), f"{built} runs in place of {path}"
        manifest = json.loads((BUILT / "manifest.json").read_text())
        assert path in manifest["sources"] and not stale_sources(manifest)


# run in a scratch copy of the checkout: which file ``engine.players.search`` came from, and whether
# the line the test adds to its source ran
WHICH = """
import engine.players.search
print(engine.players.search.__file__)
print(getattr(engine.players.search, "EDITED_IN_A_SCRATCH_COPY", False))
"""


def _scratch_copy(tmp_path: Path) -> Path:
    from engine.compiled import BUILT

    copy = tmp_path / "checkout"
    shutil.copytree(ROOT / "engine", copy / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(BUILT, copy / BUILT.relative_to(ROOT))
    return copy


def _which(copy: Path) -> tuple[str, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "KOZEL_PURE_PYTHON"}
    done = subprocess.run(
        [sys.executable, "-c", WHICH], cwd=copy, env=env, capture_output=True, text=True, check=True
    )
    file, edited = done.stdout.split()
    return file, edited, done.stderr


def test_an_edited_source_runs_in_place_of_its_compiled_module(tmp_path: Path) -> None:
    """Issue 35.4: a scratch copy of an editable checkout runs its compiled search while the
    sources match; once ``engine/players/search.py`` is edited, the edit runs (every compiled module
    gives way to its source) and one warning line says why."""
    from engine.compiled import BUILT

    if not (BUILT / "manifest.json").exists():
        pytest.skip("installed with KOZEL_PURE_PYTHON=1: no compiled modules to give way")
    copy = _scratch_copy(tmp_path)
    file, edited, err = _which(copy)
    assert file.startswith(str(copy / "build" / "kozel-compiled")) and edited == "False" and err == ""

    source = copy / "engine" / "players" / "search.py"
    source.write_text(source.read_text() + "\nEDITED_IN_A_SCRATCH_COPY = True\n")
    file, edited, err = _which(copy)
    assert file == str(source) and edited == "True"
    assert err.splitlines() == [
        "engine: engine/players/search.py changed since `pip install -e .` compiled it; running the sources "
        "(`pip install -e .` compiles them again)"
    ]


def test_the_compiled_search_thinks_as_the_plain_one() -> None:
    """The same seeded thoughts (move, values, playouts, reason) from the modules as they
    are imported here (compiled, where built) and from their plain sources."""
    here = subprocess.run(
        [sys.executable, "-c", THOUGHTS], cwd=ROOT, capture_output=True, text=True, check=True
    )
    pure = subprocess.run(
        [sys.executable, "-c", PURE + THOUGHTS],
        cwd=ROOT,
        env=PURE_ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    ours, theirs = json.loads(here.stdout), json.loads(pure.stdout)
    assert len(ours) == 2 * len(SEARCH_TABLES)
    assert ours == theirs


def test_the_compiled_matches_play_as_the_plain_ones() -> None:
    """The same seeded random matches of every preset (each deal's deck, actions and result,
    the final state) from the modules as imported here and from their sources."""
    here = subprocess.run(
        [sys.executable, "-c", MATCHES], cwd=ROOT, capture_output=True, text=True, check=True
    )
    pure = subprocess.run(
        [sys.executable, "-c", PURE + MATCHES],
        cwd=ROOT,
        env=PURE_ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    ours, theirs = json.loads(here.stdout), json.loads(pure.stdout)
    assert len(ours) == 2 * 34
    assert ours == theirs


def test_a_deals_copy_holds_every_field() -> None:
    """``DrawingDeal.copy`` names its fields one by one (a compiled class has no
    ``__slots__`` to loop over): every field of the deal, mid-trick, is in the copy, equal,
    and the copy's lists are its own."""
    from engine.families.drawing.deal import _SLOTS, DrawingDeal
    from engine.presets import make_rules
    from engine.registry import new_match

    for preset, players in (("kozel", 4), ("kozel-4", 4), ("kozel-60", 2)):
        match = new_match(make_rules(preset, players), seed=3)
        for _ in range(players + 1):  # one trick and a lead: the stock drawn, a trick open
            seat = match.to_act()[0]
            match.apply(seat, match.legal_actions(seat)[0])
        deal = match.deal  # type: ignore[attr-defined]
        assert isinstance(deal, DrawingDeal)
        deal.legal_actions(deal.to_move)  # a cache the copy starts empty
        copy = deal.copy()
        for name in _SLOTS:
            if name == "_legal":
                assert copy._legal == {}
                continue
            assert getattr(copy, name) == getattr(deal, name), name
        for mine, its in ((copy.hands, deal.hands), (copy.piles, deal.piles)):
            assert mine is not its and all(a is not b for a, b in zip(mine, its, strict=True))
        for name in ("stock", "tricks", "plays", "reserve"):
            assert getattr(copy, name) is not getattr(deal, name), name


@pytest.mark.parametrize(
    "module,name,preset,players,options,own",
    [
        ("families.drawing.match", "Match", "kozel", 2, {"tie": "eggs_double"}, ("scores", "out", "history")),
        ("families.trump.match", "TrumpMatch", "kozel-nn", 4, {}, ("scores", "history")),
        ("families.petukh.match", "PetukhMatch", "petukh", 4, {}, ("scores", "skips_left", "history")),
    ],
)
def test_a_matchs_copy_holds_every_field(
    module: str, name: str, preset: str, players: int, options: dict[str, Any], own: tuple[str, ...]
) -> None:
    """A match's ``copy`` names its fields (``_fields``): every field its ``__init__`` sets
    (read from its source) is in the copy, equal, with the mutable ones its own; a deep copy
    plays on as the match does."""
    from engine.presets import make_rules
    from engine.registry import new_match

    kind = getattr(importlib.import_module(f"engine.{module}"), name)
    fields = fields_set(module, name, "__init__")
    assert {"rules", "seed", "decks", "scores", "history", "start_events"} <= fields
    match: Any = new_match(make_rules(preset, players, options), seed=5)
    assert isinstance(match, kind)
    while match.deal_no < 2:  # a finished deal in the history, a second one under way
        seat = match.to_act()[0]
        match.apply(seat, match.legal_actions(seat)[0])
    copy = match.copy()
    for field_name in fields - {"deal"}:
        assert getattr(copy, field_name) == getattr(match, field_name), field_name
    assert copy.deal is not match.deal
    assert copy.to_state() == match.to_state()
    for field_name in own:
        assert getattr(copy, field_name) is not getattr(match, field_name), field_name
    assert copy.history[-1].actions is not match.history[-1].actions
    deep = copy_module.deepcopy(match)  # through ``__reduce__``: no bare ``__new__`` compiled
    assert deep.to_state() == match.to_state() and deep.history == match.history
    assert deep.deal is not match.deal and deep.history[0] is not match.history[0]
    seat = match.to_act()[0]
    act = match.legal_actions(seat)[0]
    assert [e.to_json() for e in deep.apply(seat, act)] == [e.to_json() for e in match.apply(seat, act)]
    assert deep.to_state() == match.to_state()


def test_a_trump_deals_copy_holds_every_field() -> None:
    """``TrumpDeal.copy`` names its fields (a compiled class has no ``__dict__`` to update):
    every dataclass field of a dealing mid-trick is in the copy, equal, and the copy's lists
    are its own."""
    from dataclasses import fields

    from engine.families.trump.deal import TrumpDeal
    from engine.presets import make_rules
    from engine.registry import new_match

    for preset, options in (("kozel-hvalenyi", {"deck": 32}), ("kozel-nn", {}), ("kozel-kocherga", {})):
        match: Any = new_match(make_rules(preset, 4, options), seed=3)
        for _ in range(6):
            seat = match.to_act()[0]
            match.apply(seat, match.legal_actions(seat)[-1])
        deal = match.deal
        assert isinstance(deal, TrumpDeal)
        deal.legal_actions(deal.to_move)  # a cache the copy starts empty
        copy = deal.copy()
        for f in fields(TrumpDeal):
            if f.name == "_legal":
                assert copy._legal == {}
                continue
            assert getattr(copy, f.name) == getattr(deal, f.name), f.name
        assert copy.hands is not deal.hands and all(
            a is not b for a, b in zip(copy.hands, deal.hands, strict=True)
        )
        for name in ("piles", "tricks", "plays", "stock", "covers", "boast_piles"):
            assert getattr(copy, name) is not getattr(deal, name), name


def test_a_petukh_deals_copy_holds_every_field() -> None:
    """``PetukhDeal.copy`` deals the deck again and sets the fields play changes by name:
    every field any of its methods sets (read from its source) is in the copy, equal, at
    moments of the exchange and of trick play, and the copy's lists are its own."""
    from engine.families.petukh.deal import PetukhDeal
    from engine.presets import make_rules
    from engine.registry import new_match

    fields = fields_set("families.petukh.deal", "PetukhDeal")
    assert {"hands", "stock", "phase", "face_up", "trump_card", "counter", "_legal"} <= fields
    for preset, players, options in (("petukh", 4, {"trump_swap": "must"}), ("petukh-25", 3, {})):
        match: Any = new_match(make_rules(preset, players, options), seed=3)
        for step in range(3 * players):
            deal = match.deal
            assert isinstance(deal, PetukhDeal)
            deal.legal_actions(deal.to_move)  # a cache the copy starts empty
            copy = deal.copy(match.skips_left)
            for name in fields - {"_legal"}:
                assert getattr(copy, name) == getattr(deal, name), (step, name)
            assert copy._legal == {}
            for name in ("hands", "stock", "discards", "passed", "piles", "tricks", "plays", "boys"):
                assert getattr(copy, name) is not getattr(deal, name), name
            seat = match.to_act()[0]
            match.apply(seat, match.legal_actions(seat)[-1])
