// Cards drawn as cards: a face (rank and suit large in the corners, a big suit in the
// middle; hearts and diamonds red) or a back. Suits are SVG, so no font decides them.

const SUIT_PATHS = {
  H: '<path d="M50 90C22 66 4 50 4 30 4 15 15 5 28 5c10 0 17 6 22 14C55 11 62 5 72 5c13 0 24 10 24 25 0 20-18 36-46 60z"/>',
  D: '<path d="M50 3 88 50 50 97 12 50z"/>',
  S: '<path d="M50 4C62 24 96 40 96 62c0 14-11 22-23 22-8 0-15-4-19-10 1 10 5 17 13 22H33c8-5 12-12 13-22-4 6-11 10-19 10C15 84 4 76 4 62 4 40 38 24 50 4z"/>',
  C: '<circle cx="50" cy="28" r="21"/><circle cx="26" cy="60" r="21"/><circle cx="74" cy="60" r="21"/><path d="M45 55c0 20-5 32-13 41h36c-8-9-13-21-13-41z"/>',
};

export function suitSvg(suit, cls = "suit") {
  const red = suit === "H" || suit === "D";
  return `<svg class="${cls} ${red ? "red" : "black"}" viewBox="0 0 100 100" aria-hidden="true">${SUIT_PATHS[suit] || ""}</svg>`;
}

export function rankOf(card) {
  return card.slice(0, -1);
}

export function suitOf(card) {
  return card.slice(-1);
}

const SYMBOL = { H: "♥", D: "♦", S: "♠", C: "♣" };

export function cardName(card) {
  return rankOf(card) + SYMBOL[suitOf(card)];
}

// a face-up card: data-card holds its code (10H), the label its name for screen readers
export function face(card, size = "") {
  const el = document.createElement("div");
  const suit = suitOf(card);
  el.className = `card face ${size} ${suit === "H" || suit === "D" ? "red" : "black"}`;
  el.dataset.card = card;
  el.setAttribute("aria-label", cardName(card));
  el.innerHTML =
    `<span class="corner tl"><b>${rankOf(card)}</b>${suitSvg(suit, "pip")}</span>` +
    `<span class="center">${suitSvg(suit, "big")}</span>` +
    `<span class="corner br"><b>${rankOf(card)}</b>${suitSvg(suit, "pip")}</span>`;
  return el;
}

export function back(size = "") {
  const el = document.createElement("div");
  el.className = `card back ${size}`;
  return el;
}
