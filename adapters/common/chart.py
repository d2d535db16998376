"""A long match's score, deal by deal, as a small picture posted with the result.

Only lines, axes and digits are drawn (any font has digits): the names are in the caption,
each with the colour of its line as a coloured square (``LEGEND``), so Cyrillic names never
depend on the fonts of the machine the bot runs on.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

# a side's line colour and the emoji square that stands for it in the caption
COLOURS = [(220, 50, 47), (38, 139, 210), (133, 153, 0), (181, 137, 0), (108, 113, 196), (203, 75, 22)]
LEGEND = ["🟥", "🟦", "🟩", "🟨", "🟪", "🟧"]
MIN_DEALS = 4  # a shorter match needs no picture: its lines say it all
W, H, PAD = 640, 320, 40


def worth_a_chart(progress: list[list[int]]) -> bool:
    return len(progress) >= MIN_DEALS


def score_chart(progress: list[list[int]], target: int | None = None, start: int = 0) -> bytes:
    """PNG bytes: one line a side from ``start`` (Petukh: the starting record), deal
    numbers along, the score up; ``target`` dashed."""
    sides = len(progress[0])
    values = [start] + [v for row in progress for v in row] + ([target] if target is not None else [])
    low, high = min(0, *values), max(1, *values)
    img = Image.new("RGB", (W, H), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=12)

    def at(deal: int, score: float) -> tuple[float, float]:
        x = PAD + (W - 2 * PAD) * (deal / max(1, len(progress)))
        y = H - PAD - (H - 2 * PAD) * ((score - low) / (high - low))
        return x, y

    draw.line([at(0, low), at(len(progress), low)], fill="black")
    draw.line([at(0, low), at(0, high)], fill="black")
    for v in sorted({low, high, *([target] if target is not None else [])}):
        x, y = at(0, v)
        draw.text((x - 6, y), str(v), fill="black", font=font, anchor="rm")
    step = max(1, len(progress) // 8)
    for d in range(step, len(progress) + 1, step):
        x, y = at(d, low)
        draw.text((x, y + 6), str(d), fill="black", font=font, anchor="mt")
    if target is not None:
        for x0 in range(PAD, W - PAD, 12):
            y = at(0, target)[1]
            draw.line([(x0, y), (x0 + 6, y)], fill=(120, 120, 120))
    for side in range(sides):
        points = [at(0, start)]
        points += [at(d + 1, row[side]) for d, row in enumerate(progress)]
        draw.line(points, fill=COLOURS[side % len(COLOURS)], width=3)
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return buf.getvalue()
