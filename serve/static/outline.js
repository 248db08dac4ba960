// The board in words: the picture is one image to a screen reader, so the same view is also listed, labelled, from
// GET .../outline (whose turn, each player and what they hold, the table, the result). Out of sight on the screen,
// read by assistive technology. Loaded before page.js, whose `refresh` calls it after each redraw.
"use strict";

let outlineAsked = 0;

function outlineList(items, label) {
  return el("ul", { "aria-label": label }, ...items.map((item) => el("li", null, item.text,
    item.items && item.items.length ? outlineList(item.items, item.text) : null)));
}

async function showOutline() {
  const asked = ++outlineAsked;
  const answer = await api("GET", `/api/games/${encodeURIComponent(table.id)}/outline`, undefined, table.me.token);
  if (answer.status !== 200 || asked !== outlineAsked) return;  // a later redraw asked again: its answer is drawn
  const outline = answer.body.outline;
  const box = document.getElementById("board-words-list");
  box.replaceChildren(
    el("p", null, outline.title),
    el("p", null, `Whose turn: ${outline.turn}`),
    outline.result ? el("p", null, outline.result) : null,
    el("h3", null, "Players"), outlineList(outline.players, "players"),
    el("h3", null, "The table"), outlineList(outline.table, "the table"));
  box.dataset.seq = String(answer.body.seq);
}
