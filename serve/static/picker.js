// The card picker of the table's page: a move that names cards (a hand, a draw, a reveal, a refill) is entered by
// tapping the cards' pictures, then confirmed once. What may be named comes from the API alone: the box's pieces with
// their pictures (`GET /api/games/{id}/pieces`, read once) and what this caller may name now
// (`GET /api/games/{id}/names`, read with the listing), computed by the server on the table as this caller knows it.
// The page computes no rule: a listed naming lets only its listed moves be chosen; a composed one (a dealt hand) is
// written as the API says (`head`, then each slot's `before` and pieces) and judged by the server when recorded.
// page.js calls `movesPanel` to draw the moves (buttons, folded groups and pickers) and `loadPieces` once.
"use strict";

const MOST_BUTTONS = 12;  // no group shows more buttons than this unfolded: a longer one becomes pickers or folds
const picking = { pieces: new Map(), order: new Map(), game: null, states: new Map() };

async function loadPieces(id, token) {
  // The box's pieces never change during a game: read once per page.
  if (picking.game === id) return;
  const answer = await api("GET", `/api/games/${encodeURIComponent(id)}/pieces`, undefined, token);
  if (answer.status !== 200) return;
  picking.game = id;
  for (const piece of answer.body.pieces || []) {
    picking.order.set(piece.code, picking.pieces.size);
    picking.pieces.set(piece.code, piece);
  }
}

function pieceOrder(code) {
  return picking.order.has(code) ? picking.order.get(code) : Number.MAX_SAFE_INTEGER;
}

function pictureOf(code, tallest) {
  // the piece as the board draws it, no taller than `tallest` px (a Splendor card shrinks, a half-card does not)
  const piece = picking.pieces.get(code);
  if (!piece) return el("span", { class: "face" }, code);
  const parsed = new DOMParser().parseFromString(piece.svg, "image/svg+xml").documentElement;
  if (parsed.nodeName !== "svg") return el("span", { class: "face" }, code);
  for (const script of parsed.querySelectorAll("script")) script.remove();
  const node = document.importNode(parsed, true);
  const width = Number(node.getAttribute("width")) || tallest;
  const height = Number(node.getAttribute("height")) || tallest;
  const scale = Math.min(1, tallest / height);
  node.setAttribute("width", String(Math.round(width * scale)));
  node.setAttribute("height", String(Math.round(height * scale)));
  node.setAttribute("aria-hidden", "true");
  node.removeAttribute("role");
  return node;
}

// --------------------------------------------------------------------------- the moves, grouped

function isMyNaming(naming) {
  // whose picker a page shows: a seat its own moves; the table's listed entries on any page that makes the table's
  // entries (they stand for its buttons); a table's entry no button makes (a deal naming its card) on the page asked
  // to make it (the dealer's), the host's, or any seat's when no seat is asked
  if (naming.player || naming.choices) return isMine(naming.player ? `${naming.player}: ` : "");
  if (table.me.kind === "host") return true;
  if (table.me.kind !== "seat") return false;
  return !table.owed.some((due) => due.seat === TABLE && due.by && due.by !== table.me.seat);
}

function covers(naming, move) {
  // a composed naming may take every listed move of its kind and player (a whole setup's reveal, the one-card reveals)
  return naming.takes_listed && kindOf(move) === naming.kind && playerOf(move) === (naming.player ?? null);
}

function movesPanel(moves, namings) {
  // Groups by kind, in the listing's order, after the kinds only a picker names (a hand owed comes first); a group of
  // more than MOST_BUTTONS moves shows its pickers and folds the rest, so that no unfolded group is a wall of buttons.
  const groups = new Map();
  for (const naming of namings) if (!naming.choices && !moves.some((move) => kindOf(move) === naming.kind)) groups.set(naming.kind, []);
  for (const move of moves) {
    const kind = kindOf(move);
    if (!groups.has(kind)) groups.set(kind, []);
    groups.get(kind).push(move);
  }
  const unfold = groups.size === 1 || (moves.length <= 6 && !namings.some((naming) => !naming.choices));
  return [...groups].map(([kind, group]) => {
    const own = namings.filter((naming) => naming.kind === kind);
    const composed = own.filter((naming) => !naming.choices);
    const long = group.length > MOST_BUTTONS || composed.length > 0;
    const pickers = long ? own.filter((naming) => !naming.choices || naming.choices.length > 1) : [];
    const listed = new Set(pickers.flatMap((naming) => (naming.choices || []).map((choice) => choice.move)));
    const rest = group.filter((move) => !listed.has(move) && !composed.some((naming) => covers(naming, move)));
    const count = composed.length && !group.length ? "" : `(${group.length})`;
    // a lone picker is shown open; several (a draw from the pile, one from another hand) each fold under its words
    const alone = pickers.length === 1 && !rest.length;
    const details = el("details", { class: "group", "data-kind": kind, open: unfold || composed.length > 0 || table.opened.has(kind) },
      el("summary", null, kind, el("span", { class: "count" }, count)),
      ...pickers.map((naming) => (alone || !naming.choices ? pickerNode(naming) : foldedPicker(naming))), ...folded(rest, 1));
    details.addEventListener("toggle", () => {
      if (details.open) table.opened.add(kind);
      else table.opened.delete(kind);
    });
    return details;
  });
}

function kept(key, summary, ...children) {
  // a fold the player opened stays open when another seat's move redraws the page
  const fold = el("details", { class: "fold", "data-fold": key, open: table.opened.has(`fold:${key}`) }, summary, ...children);
  fold.addEventListener("toggle", () => {
    if (fold.open) table.opened.add(`fold:${key}`);
    else table.opened.delete(`fold:${key}`);
  });
  return fold;
}

function foldedPicker(naming) {
  return kept(namingKey(naming), el("summary", null, shortened(naming.words),
    el("span", { class: "count" }, `(${naming.choices.length})`)), pickerNode(naming));
}

function buttonsOf(moves) {
  return el("div", { class: "buttons" }, ...moves.map((move) =>
    el("button", { type: "button", "data-move": move, onclick: () => { table.place = null; record(move); } }, shortened(move))));
}

function folded(moves, depth) {
  // At most MOST_BUTTONS buttons side by side: a longer run is folded by its next word (`reserve deck` -> 1, 2, 3),
  // the words that only one move has shown as buttons beside the folds
  if (!moves.length) return [];
  if (moves.length <= MOST_BUTTONS) return [buttonsOf(moves)];
  const words = (move) => shortened(move).split(" ");
  const by = new Map();
  for (const move of moves) {
    const key = words(move).slice(0, depth + 1).join(" ");
    if (!by.has(key)) by.set(key, []);
    by.get(key).push(move);
  }
  if (by.size === 1 && moves.every((move) => words(move).length > depth + 1)) return folded(moves, depth + 1);
  if (by.size === 1 || by.size > MOST_BUTTONS) return [...chunks(moves)];
  const alone = [...by.values()].filter((part) => part.length === 1).map((part) => part[0]);
  const folds = [...by].filter(([, part]) => part.length > 1).map(([key, part]) =>
    kept(key, el("summary", null, key, el("span", { class: "count" }, `(${part.length})`)), ...folded(part, depth + 1)));
  return alone.length ? [buttonsOf(alone), ...folds] : folds;
}

function* chunks(moves) {
  // moves that no word tells apart, folded a dozen at a time
  for (let at = 0; at < moves.length; at += MOST_BUTTONS) {
    const part = moves.slice(at, at + MOST_BUTTONS);
    yield kept(`${part[0]} …`, el("summary", null, `${shortened(part[0])} …`,
      el("span", { class: "count" }, `(${part.length})`)), buttonsOf(part));
  }
}

// --------------------------------------------------------------------------- one picker

function namingKey(naming) {
  return [naming.kind, naming.player, naming.head, ...naming.slots.map((slot) => slot.name)].join("|");
}

function stateOf(naming) {
  // what the player picked so far, kept across redraws (another seat's move redraws the page meanwhile), less what
  // the table now offers no more (a card another seat just laid)
  const key = namingKey(naming);
  let state = picking.states.get(key);
  if (state && state.picks.length === naming.slots.length) prune(naming, state);
  if (!state || state.picks.length !== naming.slots.length || (naming.choices && !compatible(naming, state.picks).length)) {
    state = { picks: naming.slots.map(() => []), active: 0, path: [] };
    picking.states.set(key, state);
  }
  return state;
}

function prune(naming, state) {
  const used = new Map();
  state.picks = state.picks.map((chosen, i) => chosen.filter((code) => {
    const count = (used.get(code) || 0) + 1;
    if (count > (naming.slots[i].pool[code] || 0)) return false;
    used.set(code, count);
    return true;
  }));
  state.active = Math.min(state.active, naming.slots.length - 1);
}

function counts(codes) {
  const found = new Map();
  for (const code of codes) found.set(code, (found.get(code) || 0) + 1);
  return found;
}

function within(picked, allowed) {
  // whether the multiset `picked` fits in the multiset `allowed`
  const have = counts(allowed);
  for (const [code, n] of counts(picked)) if ((have.get(code) || 0) < n) return false;
  return true;
}

function sameSet(a, b) {
  return a.length === b.length && within(a, b);
}

function compatible(naming, picks) {
  return naming.choices.filter((choice) => picks.every((chosen, i) => within(chosen, choice.picks[i])));
}

function exact(naming, picks) {
  return naming.choices.filter((choice) => picks.every((chosen, i) => sameSet(chosen, choice.picks[i])));
}

function offered(naming, state) {
  // code -> how many more may go into the active slot
  const slot = naming.slots[state.active];
  const picks = state.picks;
  const found = new Map();
  if (naming.choices) {  // as many more of a card as some listed move still compatible with the picks names
    const mine = counts(picks[state.active]);
    for (const choice of compatible(naming, picks)) {
      for (const [code, n] of counts(choice.picks[state.active])) {
        const more = n - (mine.get(code) || 0);
        if (more > 0) found.set(code, Math.max(found.get(code) || 0, more));
      }
    }
    return found;
  }
  if (picks[state.active].length >= slot.most) return found;
  const used = counts(picks.flat());
  for (const [code, copies] of Object.entries(slot.pool)) {
    const left = copies - (used.get(code) || 0);
    if (left > 0) found.set(code, left);
  }
  return found;
}

function isComplete(naming, state) {
  if (naming.choices) return exact(naming, state.picks).length > 0;
  const total = state.picks.reduce((sum, chosen) => sum + chosen.length, 0);
  return total > 0 && naming.slots.every((slot, i) => state.picks[i].length >= slot.least);
}

function composeMove(naming, picks) {
  // a composed naming's text, as the API describes it (`core.naming.compose`)
  const words = [naming.head];
  naming.slots.forEach((slot, i) => {
    if (picks[i].length && slot.before) words.push(slot.before);
    words.push(...picks[i]);
  });
  return words.join(" ");
}

function advance(naming, state) {
  // on to the next slot when the active one can take no more
  while (state.active < naming.slots.length - 1 && offered(naming, state).size === 0) state.active += 1;
}

function pickerNode(naming) {
  const state = stateOf(naming);
  advance(naming, state);
  const node = el("div", { class: "picker", "data-kind": naming.kind, "data-head": naming.head,
                           "data-player": naming.player || "" });
  drawPicker(node, naming, state);
  return node;
}

function redraw(node, naming, state) {
  advance(naming, state);
  drawPicker(node, naming, state);
}

function drawPicker(node, naming, state) {
  const parts = [el("p", { class: "words" }, shortened(naming.words))];
  if (naming.slots.length > 1) parts.push(slotTabs(node, naming, state));
  const chosen = chosenStrip(node, naming, state);
  if (chosen) parts.push(chosen);
  const available = offered(naming, state);
  parts.push(...groupTabs(node, naming, state, available));
  parts.push(pieceGrid(node, naming, state, available));
  parts.push(confirmRow(node, naming, state));
  node.replaceChildren(...parts);
}

function slotTabs(node, naming, state) {
  return el("div", { class: "slots", role: "tablist" }, ...naming.slots.map((slot, i) => el("button", {
    type: "button", class: `slot${i === state.active ? " active" : ""}`, "data-slot": i, role: "tab",
    "aria-selected": String(i === state.active),
    onclick: () => { state.active = i; state.path = []; drawPicker(node, naming, state); } },
  `${slot.name} ${state.picks[i].length}/${slot.most}`)));
}

function chosenStrip(node, naming, state) {
  const chosen = state.picks.flatMap((picks, slot) => picks.map((code, at) => ({ code, slot, at })));
  if (!chosen.length) return null;
  return el("div", { class: "chosen", "aria-label": "picked: tap one to put it back" }, ...chosen.map(({ code, slot, at }) =>
    el("button", { type: "button", class: "piece picked", "data-picked": code, "aria-label": `put back ${code}`,
      onclick: () => {
        state.picks[slot].splice(at, 1);
        state.active = Math.min(state.active, slot);
        drawPicker(node, naming, state);
      } }, pictureOf(code, 40), el("span", { class: "code" }, code))));
}

function groupOf(code) {
  const piece = picking.pieces.get(code);
  return piece ? piece.group : ["other"];
}

function groupTabs(node, naming, state, available) {
  // the game's groups (a suit, a level and a colour), each with how many of its cards may be picked now; one row of
  // tabs per level of grouping, a level of one group left out
  const rows = [];
  const codes = [...available.keys()];
  for (let depth = 0; ; depth += 1) {
    const here = codes.filter((code) => state.path.slice(0, depth).every((name, i) => groupOf(code)[i] === name));
    const names = [...new Set(here.map((code) => groupOf(code)[depth]).filter((name) => name !== undefined))];
    if (!names.length) break;
    if (!names.includes(state.path[depth])) state.path = [...state.path.slice(0, depth), names[0]];
    if (names.length > 1) {
      rows.push(el("div", { class: "tabs", role: "tablist" }, ...names.map((name) => el("button", {
        type: "button", class: `tab${name === state.path[depth] ? " active" : ""}`, "data-group": name, role: "tab",
        "aria-selected": String(name === state.path[depth]),
        onclick: () => { state.path = [...state.path.slice(0, depth), name]; drawPicker(node, naming, state); } },
      name, el("span", { class: "count" }, String(here.filter((code) => groupOf(code)[depth] === name)
        .reduce((sum, code) => sum + available.get(code), 0)))))));
    }
  }
  return rows;
}

function pieceGrid(node, naming, state, available) {
  const shown = [...available.keys()]
    .filter((code) => state.path.every((name, i) => groupOf(code)[i] === name))
    .sort((a, b) => pieceOrder(a) - pieceOrder(b));
  if (!shown.length) return el("p", { class: "none" }, naming.choices ? "" : "Every card is picked.");
  return el("div", { class: "pieces" }, ...shown.map((code) => {
    const left = available.get(code);
    return el("button", { type: "button", class: "piece", "data-piece": code, "aria-label": `pick ${code}`,
      onclick: () => {
        state.picks[state.active].push(code);
        redraw(node, naming, state);
      } }, pictureOf(code, 64), el("span", { class: "code" }, code), left > 1 ? el("span", { class: "copies" }, `×${left}`) : null);
  }));
}

function confirmRow(node, naming, state) {
  const clear = el("button", { type: "button", class: "quiet clear", onclick: () => {
    picking.states.delete(namingKey(naming));
    drawPicker(node, naming, stateOf(naming));
  } }, "Clear");
  if (naming.choices) {
    const found = exact(naming, state.picks);
    if (found.length > 1) {  // the pieces tell several moves apart no further (a card laid, where): one button each
      return el("div", null, buttonsFor(naming, found.map((choice) => choice.move)), el("div", { class: "row" }, clear));
    }
  }
  const move = !isComplete(naming, state) ? null
    : naming.choices ? exact(naming, state.picks)[0].move : composeMove(naming, state.picks);
  // the button says the move it records (the whole text in `data-move`), so nothing is recorded unseen
  const record = el("button", { type: "button", class: "record", "data-move": move, disabled: !move,
    onclick: () => recordPicked(naming, move) }, move ? `Record ${shortened(move)}` : "Record");
  return el("div", { class: "row" }, record, clear);
}

function buttonsFor(naming, moves) {
  return el("div", { class: "buttons" }, ...moves.map((move) => el("button", { type: "button", "data-move": move,
    onclick: () => recordPicked(naming, move) }, shortened(move))));
}

async function recordPicked(naming, move) {
  // recorded as any move is; once recorded, the picks are done with before the page is redrawn (a seat that draws
  // twice in a row finds its picker empty, not holding the card it just drew)
  table.place = null;
  await record(move, () => picking.states.delete(namingKey(naming)));
}
