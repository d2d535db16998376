// An ended match stepped through card by card (issue 36.4): the page fetches the replay
// its link names (the part after #) and draws, at each step, every hand, the cards of the
// trick so far and what the step did. ◀ ▶ step, ⏮ ⏭ change the deal.
import { face } from "./cards.js";

const $ = (id) => document.getElementById(id);
let doc = null;
let deal = 0;
let step = 0; // 0: the hands as dealt; n: after the n-th move

function lang() {
  const l = (navigator.language || "ru").slice(0, 2);
  return ["ru", "en", "uk", "hr"].includes(l) ? l : "ru";
}

function draw() {
  const d = doc.deals[deal];
  const hands = step === 0 ? d.hands : d.steps[step - 1].hands;
  const said = step === 0 ? doc.words.start : d.steps[step - 1].lines.join("\n");
  $("head").textContent = d.head.join("\n");
  const seats = $("rseats");
  seats.replaceChildren();
  doc.seats.forEach((name, i) => {
    const row = document.createElement("div");
    row.className = "rseat" + (step > 0 && d.steps[step - 1].seat === i ? " on" : "");
    row.dataset.seat = i;
    const label = document.createElement("div");
    label.className = "txt";
    label.textContent = name;
    const hand = document.createElement("div");
    hand.className = "rhand";
    for (const c of hands[i] || []) hand.append(face(c, "small"));
    row.append(label, hand);
    seats.append(row);
  });
  // the trick so far: the cards since the last trick was taken
  const trick = $("trick");
  trick.replaceChildren();
  let first = step;
  while (first > 0 && !d.steps[first - 1].lines.some((l) => l.startsWith("→"))) first--;
  for (let i = Math.max(first, 0); i < step; i++) {
    for (const c of d.steps[i].cards) trick.append(face(c, "small"));
  }
  $("said").textContent = said;
  $("where").textContent =
    doc.words.deal.replace("{deal_no}", String(deal + 1)) + " / " + doc.deals.length + " · " +
    doc.words.step.replace("{n}", String(step)).replace("{total}", String(d.steps.length));
  const last = deal === doc.deals.length - 1 && step === d.steps.length;
  $("result").hidden = !last;
  $("prev").disabled = step === 0;
  $("next").disabled = step === d.steps.length;
  $("prevdeal").disabled = deal === 0;
  $("nextdeal").disabled = deal === doc.deals.length - 1;
  document.body.dataset.deal = String(deal);
  document.body.dataset.step = String(step);
}

function go(newDeal, newStep) {
  deal = Math.max(0, Math.min(newDeal, doc.deals.length - 1));
  step = Math.max(0, Math.min(newStep, doc.deals[deal].steps.length));
  draw();
}

async function main() {
  const link = decodeURIComponent(location.hash.slice(1));
  const res = await fetch(`/replay.json?link=${encodeURIComponent(link)}&lang=${lang()}`);
  const body = await res.json();
  if (!res.ok) {
    $("title").textContent = body.error || "—";
    document.body.dataset.error = "1";
    for (const b of document.querySelectorAll("nav button")) b.disabled = true;
    return;
  }
  doc = body;
  $("title").textContent = doc.title;
  $("result").textContent = "🏆 " + doc.result;
  $("prev").onclick = () => go(deal, step - 1);
  $("next").onclick = () => go(deal, step + 1);
  $("prevdeal").onclick = () => go(deal - 1, 0);
  $("nextdeal").onclick = () => go(deal + 1, 0);
  go(0, 0);
  document.body.dataset.ready = "1";
}

main();
