"""The words of results and records, in the chat's language: what a deal and a match did
and why, the series, the leaderboard, a person's numbers (issue 18). Mixed into ``Text``
(``adapters/common/render.py``), which gives it the words it builds on: the catalog, names
of seats and sides, the preset's title, a suit's symbol.
"""

from __future__ import annotations

from typing import Any

from adapters.common.chart import LEGEND
from adapters.common.i18n import N_
from adapters.common.lobby import level_word
from adapters.common.words import OUTCOMES
from bot.ratings import MIN_MATCHES
from bot.views import Line, TableView

SIXTY = 60  # the target of Kozel to 60: card points add up to it


def signed(n: int) -> str:
    """A change of a score as players write it: +2, −5, 0."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "0"


class ResultWords:
    """Results and records as text; ``Text`` gives the words below."""

    def _(self, text: str) -> str:
        raise NotImplementedError

    def n(self, one: str, many: str, n: int) -> str:
        raise NotImplementedError

    def line(self, line: Line, table: TableView | None = None) -> str:
        raise NotImplementedError

    def seat_name(self, table: TableView, seat: int, params: dict[str, Any] | None = None) -> str:
        raise NotImplementedError

    def side_name(self, table: TableView, side: int, params: dict[str, Any] | None = None) -> str:
        raise NotImplementedError

    def preset_title(self, preset: str) -> str:
        raise NotImplementedError

    def suit(self, letter: str) -> str:
        raise NotImplementedError

    # --- what a deal and a match did, and why ----------------------------------------

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
            parts.append(self.n("{n} trick", "{n} tricks", tricks).format(n=tricks) + f": {signed(-tricks)}")
        if boys is not None:
            suits = "".join(self.suit(x) for x in str(boys[2]))
            parts.append(self._("boys {suits}").format(suits=suits) + f": {signed(int(boys[3]))}")
        elif not tricks:  # the no-trick fine (0 above the cap)
            parts.append(f"{self._('no trick')}: {signed(p['changes'][seat] - bonus)}")
        if bonus:
            parts.append(f"{self._('ace of spades')}: {signed(bonus)}")
        text = ", ".join(parts)
        if seat in (p.get("overshoot") or []):
            return text + ", " + self._("overshoot: back to {start}").format(start=record)
        return f"{text} → {record}"

    def match_result(
        self, line: Line, table: TableView, extra: list[Line] | None = None, legend: bool = False
    ) -> str:
        """The match's end from its own line (the table may already show the next match):
        the winners and the losers (Kozel's kozly; Petukh's others, the rooster and the
        debts), each side with its score; ``legend``: each side with its chart colour."""
        p = line.params
        extra = extra or []
        scores = list(p.get("score", table.scores))
        winners = set(p.get("winners", table.winners))
        sides = table.sides if len(table.sides) == len(scores) else [[i] for i in range(len(scores))]
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
            rows.append(
                self._(N_("Others: {sides}") if records else N_("Kozly: {sides}")).format(
                    sides=" · ".join(lost)
                )
            )
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
        debts = [
            f"{self.seat_name(table, a, p)} → {self.seat_name(table, b, p)} {n}"
            for a, b, n in p.get("debts") or []
            if n
        ]
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
            lines.append(f"• {self.preset_title(r['preset'])}: {body} ({played})")
        return "\n".join(lines)

    def top(self, rows: list[dict[str, Any]]) -> str:
        """/top: people by rating with their matches; those with fewer than
        ``MIN_MATCHES`` apart; the computer levels that played here."""
        people = [r for r in rows if not r.get("computer")]
        if not people:
            return self._("No finished matches in this chat yet.")
        ranked = [r for r in people if r["ranked"]]
        lines = ["🏆 " + self._("Leaderboard by rating:")]
        lines += [
            f"{i}. {r['name']} — {r['rating']:.1f} · {self._played_won(r)}"
            for i, r in enumerate(ranked[:15], start=1)
        ]
        if not ranked:
            lines.append(self._("Nobody is ranked yet."))
        waiting = [r for r in people if not r["ranked"]]
        if waiting:
            lines.append(
                self.n(
                    "Not ranked yet (fewer than {n} match):",
                    "Not ranked yet (fewer than {n} matches):",
                    MIN_MATCHES,
                ).format(n=MIN_MATCHES)
            )
            lines.append(", ".join(f"{r['name']} ({r['played']})" for r in waiting[:20]))
        levels = [
            f"{self._(level_word(r['name']) or r['name'])} {r['rating'] or 0:.1f} ({r['played']})"
            for r in rows
            if r.get("computer")
        ]
        if levels:
            lines.append("🤖 " + self._("Computer players: {levels}").format(levels=" · ".join(levels)))
        return "\n".join(lines)

    def _played_won(self, r: dict[str, Any]) -> str:
        return self.n(
            "{played} match, won {won} ({rate})", "{played} matches, won {won} ({rate})", r["played"]
        ).format(played=r["played"], won=r["won"], rate=f"{r['rate'] or 0:.0%}")

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
            rows.append(
                self._("Rating: {overall} overall, {chat} in this chat").format(
                    overall=f"{overall:.1f}", chat=f"{here:.1f}"
                )
            )
        game = profile.get("favourite")
        if game:
            rows.append(self._("Favourite game: {game}").format(game=self.preset_title(game)))
        best = int(profile.get("best_streak") or 0)
        rows.append(
            self.n(
                "Best streak: {n} win in a row (now {now})",
                "Best streak: {n} wins in a row (now {now})",
                best,
            ).format(n=best, now=int(profile.get("streak") or 0))
        )
        return "\n".join(rows)
