"""The import contract of DESIGN.md: adapters -> bot -> engine, nothing back. The engine
knows no service, no platform and no I/O; the service knows no adapter and no platform
library; adapters never import each other (adapters/common is shared by all) and never touch
Redis directly."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLATFORMS = ("aiogram", "discord")


def imports(package: str) -> dict[str, set[str]]:
    """Module path -> the top modules (``bot.store``, ``aiogram``...) it imports."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
        out[str(path.relative_to(ROOT))] = found
    return out


def _starts(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_engine_imports_neither_the_service_nor_adapters_nor_io() -> None:
    for module, names in imports("engine").items():
        bad = {n for n in names if _starts(n, "bot", "adapters", "redis", "asyncio", "aiohttp", *PLATFORMS)}
        assert not bad, (module, bad)


def test_the_service_imports_no_adapter_and_no_platform_library() -> None:
    for module, names in imports("bot").items():
        if module == "bot/__main__.py":
            continue  # the composition root: it starts the adapters the operator asks for
        bad = {n for n in names if _starts(n, "adapters", *PLATFORMS)}
        assert not bad, (module, bad)


def test_adapters_import_no_other_adapter_and_no_redis() -> None:
    for module, names in imports("adapters").items():
        own = module.split("/")[1]
        others = [a for a in ("telegram", "discord", "console", "web") if a != own]
        bad = {n for n in names if _starts(n, *(f"adapters.{a}" for a in others), "redis", "bot.store")}
        if own == "common":
            bad |= {n for n in names if _starts(n, *PLATFORMS)}
        assert not bad, (module, bad)


def test_no_preset_name_is_compared_outside_the_preset_registry() -> None:
    """Issue 16.1: what adapters and the service need to know of a preset comes in the views
    and the registry (engine/presets.py), never from comparing its name."""
    import re

    literal = r"""\s*["'](kozel|petukh)"""
    pattern = re.compile(rf"""preset\s*(==|!=|in\s*[\(\[{{]){literal}|\.startswith\({literal}""")
    for package in ("bot", "adapters"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                assert not pattern.search(code), f"{path.relative_to(ROOT)}:{n}: {line.strip()}"


# What adapters may take from the engine: the preset registry, the action kinds, a card's
# text and typing one (the console). Everything else of a deal (rules families, trump
# ladders, the codec) reaches them only as the service's views (``bot/views.py``).
ENGINE_SURFACE = {
    "engine.presets": {"PRESETS"},
    "engine.actions": {"KINDS"},
    "engine.cards": {"CARD_TEXT", "CardError", "parse_card"},
}


def engine_names(package: str) -> dict[str, set[str]]:
    """Module path -> ``engine.module.name`` of everything it takes from the engine."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if _starts(a.name, "engine"))
            elif isinstance(node, ast.ImportFrom) and node.module and _starts(node.module, "engine"):
                found.update(f"{node.module}.{a.name}" for a in node.names)
        out[str(path.relative_to(ROOT))] = found
    return out


def test_adapters_take_only_the_engines_public_surface() -> None:
    """Issue 35.6: ``adapters/common/hands.py`` ordered a hand with the engine's trump
    ladder; the hand view now says which cards are trumps, weakest first."""
    allowed = {f"{m}.{n}" for m, names in ENGINE_SURFACE.items() for n in names}
    for module, names in engine_names("adapters").items():
        assert names <= allowed, (module, names - allowed)
    assert not engine_names("adapters")["adapters/common/hands.py"]


def _attributes(path: Path) -> set[str]:
    return {
        node.attr
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
    }


def test_adapters_never_reach_the_store() -> None:
    """Issue 35.6: the Telegram app asked ``service.store`` whether Redis answers; adapters
    ask the service (``GameService.ping``) and the pieces they are handed."""
    for path in sorted((ROOT / "adapters").rglob("*.py")):
        assert "store" not in _attributes(path), path.relative_to(ROOT)


def test_the_rooms_service_keeps_rooms_and_moves_only() -> None:
    """Issue 35.6: the platform's records (paint leases, flood budgets, message and hand
    records), a chat's settings and statistics, its history, its tournaments and the due
    moves are pieces of their own, each small, handed to the adapters that use them — not
    methods (nor mixins) of ``GameService``."""
    from bot.history import ChatHistory
    from bot.platform import FloodBudgets, PaintLeases, PlatformData
    from bot.records import ChatSettings, Statistics
    from bot.service import GameService
    from bot.timers import Timers
    from bot.tournaments import Tournaments

    def public(cls: type) -> set[str]:
        return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}

    pieces = [PaintLeases, FloodBudgets, PlatformData, ChatSettings, Statistics]
    pieces += [ChatHistory, Tournaments, Timers]
    for piece in pieces:
        assert piece.__bases__ == (object,), piece
        assert len(public(piece)) <= 16, piece
        assert not public(piece) & public(GameService), piece
    # history, tournaments and timers were mixins: 55 methods in all (issue 35.6)
    assert GameService.__bases__ == (object,)
    assert len(public(GameService)) <= 36, sorted(public(GameService))


def test_the_telegram_painter_takes_its_pieces() -> None:
    """The Telegram painter draws tables and hands; lobby expiry and its outbox (the queued
    writes) are parts of their own it holds, and the platform's records are pieces it is
    handed, not calls through the service."""
    from adapters.telegram.outbox import Outbox
    from adapters.telegram.painter import Painter

    # the posting half (``Outbox``) was a mixin: 28 methods in all (issue 35.6)
    assert Painter.__bases__ == (object,) and Outbox.__bases__ == (object,)
    own = {n for n in dir(Painter) if not n.startswith("__")}
    assert len(own) <= 20, sorted(own)
    for name in ("_expire_lobbies", "_watch_lobby", "post", "say", "hold", "_flush_posts"):
        assert name not in own


# What adapters may take of the service's token module (bot/tokens.py): a button's payload
# and whether a press is stale; tokens themselves are the service's to build and to parse.
ADAPTER_TOKENS = {"select_stem", "selected", "picked"}


def test_adapters_never_build_or_parse_a_token() -> None:
    """Issue 35.5: a button's staleness was decided in three places (``play._act``, the
    Telegram keyboards' moment, Discord's ``parse_token(stem + "1")``); now once, in the
    service and its token module."""
    for path in sorted((ROOT / "adapters").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "bot.tokens":
                assert {a.name for a in node.names} <= ADAPTER_TOKENS, where
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "tokens"
            ):
                assert node.attr in ADAPTER_TOKENS, (where, node.attr)
            if isinstance(node, ast.Attribute) and node.attr == "rpartition":
                raise AssertionError(f"{where}: a token's text taken apart")
            if isinstance(node, ast.JoinedStr):  # a moment of play ("gen.deal.trick") made here
                parts = {
                    v.value.attr
                    for v in node.values
                    if isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Attribute)
                }
                assert not {"deal_no", "trick"} <= parts, where


def test_the_service_writes_the_room_its_change_describes() -> None:
    """Issue 35.5: what a change produced (events, results, the next deadline) is set by
    ``bot/settle.py`` and travels in the change; the write path sets nothing of the room
    but its stored version and its platform data snapshot."""
    tree = ast.parse((ROOT / "bot" / "service.py").read_text(encoding="utf-8"))
    write = next(
        n for n in ast.walk(tree) if isinstance(n, ast.AsyncFunctionDef) and n.name == "_mutate_once"
    )
    for node in ast.walk(write):
        targets = node.targets if isinstance(node, ast.Assign) else []
        for target in targets:
            for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(t, ast.Attribute):
                    assert t.attr in ("version", "pdata", "sdata"), ast.unparse(t)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            assert node.func.attr != "schedule", ast.unparse(node)


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(*packages: str) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports: every import statement, those
    under ``if TYPE_CHECKING:`` and inside functions too (a type-only import is still a
    module that needs the other to be read)."""
    paths = {_module_of(p): p for package in packages for p in sorted((ROOT / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                subs = {f"{base}.{a.name}" for a in node.names} & paths.keys()
                # ``from pkg import module`` needs the module; ``from module import name`` it
                found |= subs or {base}
        graph[module] = {m for m in found if m in paths and m != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = stack[stack.index(v) :]
            del stack[stack.index(v) :]
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles_in_the_service_and_adapters() -> None:
    """Issue 35.1: ``adapters/telegram/painter`` and ``delivery`` imported each other (the
    way back under TYPE_CHECKING); what delivery needs of the painter is a protocol of its
    own now. No two modules of ``bot`` or ``adapters`` import each other, even for types."""
    graph = import_graph("bot", "adapters")
    assert "adapters.telegram.delivery" in graph["adapters.telegram.painter"]
    assert circles(graph) == []
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles_in_the_engine() -> None:
    """Issue 35.1: the engine's six circles (``bots`` and ``search``, ``match`` and
    ``observe``, each family's match and its view, state, bot or declarations) are gone:
    each family's view and declarations read the match through a small protocol, the shared
    dealing is its own module, ``players.levels`` names the players."""
    graph = import_graph("engine")
    assert "engine.families.drawing.declare" in graph["engine.families.drawing.deal"]
    assert circles(graph) == []


def test_a_family_imports_no_other_family_nor_the_players() -> None:
    """docs/architecture.md: a family's package uses the shared parts only; the players and
    the registry ask the families, never the other way."""
    graph = import_graph("engine")
    for module, imports in graph.items():
        if not module.startswith("engine.families."):
            continue
        family = module.split(".")[2]
        for other in imports:
            assert not other.startswith(("engine.players", "engine.registry")), (module, other)
            if other.startswith("engine.families."):
                assert other.split(".")[2] == family, (module, other)
