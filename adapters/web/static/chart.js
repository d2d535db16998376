// The match's score deal by deal: a line a side in its colour (the chat's chart, drawn
// here), the target as a dashed line.

const NS = "http://www.w3.org/2000/svg";

export function scoreChart(progress, sides, target) {
  const w = 300;
  const h = 150;
  const pad = 14;
  const all = progress.flat().concat([target, 0]);
  const top = Math.max(...all);
  const low = Math.min(...all);
  const x = (k) => pad + ((w - 2 * pad) * k) / Math.max(1, progress.length - 1);
  const y = (v) => h - pad - ((h - 2 * pad) * (v - low)) / Math.max(1, top - low);
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "chart");
  const goal = document.createElementNS(NS, "line");
  goal.setAttribute("x1", pad);
  goal.setAttribute("x2", w - pad);
  goal.setAttribute("y1", y(target));
  goal.setAttribute("y2", y(target));
  goal.setAttribute("class", "goal");
  svg.appendChild(goal);
  const count = progress[0]?.length || 0;
  for (let side = 0; side < count; side++) {
    const line = document.createElementNS(NS, "polyline");
    line.setAttribute("points", progress.map((row, k) => `${x(k)},${y(row[side])}`).join(" "));
    line.setAttribute("stroke", sides[side]?.colour || "#888");
    line.setAttribute("class", "side");
    svg.appendChild(line);
  }
  return svg;
}
