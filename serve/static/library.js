// The history library's page: its games with filters, its charts, and a stored game's chart and replay. Everything
// it shows comes from `GET /api/library/...` as the store hands it (the pictures and charts are drawn by the server);
// the library is the host's, so every call carries the host token. Uses page.js's el, api and errorText.
"use strict";

const FILTERS = ["game", "player", "since", "until", "simulated"];

function libraryToken() {
  const token = hostToken();
  if (!token) {
    const said = document.getElementById("said");
    said.hidden = false;
    said.className = "said bad";
    said.textContent = "The library is the host's: open the host link that tally serve printed, then come back here.";
    document.body.dataset.ready = "refused";
  }
  return token;
}

function refusal(what, answer) {
  const said = document.getElementById("said");
  said.hidden = false;
  said.className = "said bad";
  said.textContent = `${what}: ${errorText(answer.body)}${answer.body && answer.body.error ? ` (${answer.body.error})` : ""}`;
}

// An SVG the server drew, as a node of this page (parsed as SVG, never as HTML; a script in it would be removed).
function svgNode(text, label) {
  const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
  const picture = parsed.documentElement;
  if (picture.nodeName !== "svg") return el("p", { class: "empty" }, "(no picture)");
  for (const script of picture.querySelectorAll("script")) script.remove();
  picture.removeAttribute("width");
  picture.removeAttribute("height");
  if (label) picture.setAttribute("aria-label", label);
  picture.setAttribute("role", "img");
  return document.importNode(picture, true);
}

// --------------------------------------------------------------------------- the list and the charts

const shelf = { offset: 0, shown: 0 };

function chosenFilters() {
  const words = new URLSearchParams();
  for (const name of FILTERS) {
    const value = document.getElementById(`f-${name}`).value.trim();
    if (value && !(name === "simulated" && value === "real")) words.set(name, value);
  }
  return words;
}

function fillFilters(words) {
  for (const name of FILTERS) {
    const field = document.getElementById(`f-${name}`);
    field.value = words.get(name) || (name === "simulated" ? "real" : "");
  }
}

function offerChoices(known, people) {
  const select = document.getElementById("f-game");
  const chosen = select.value;
  select.replaceChildren(el("option", { value: "" }, "every game"), ...known.map((name) => el("option", { value: name }, name)));
  select.value = chosen;
  document.getElementById("people").replaceChildren(...people.map((name) => el("option", { value: name })));
}

function gameItem(game) {
  // the name the host gave the game first (three games of one evening are told apart by it), then its kind
  const when = game.started_at ? game.started_at.slice(0, 10) : "no date";
  const facts = [game.game, when, game.players.join(", ")];
  if (game.winners.length) facts.push(`won by ${game.winners.join(", ")}`);
  else if (!game.finished) facts.push("unfinished");
  if (game.turns !== null) facts.push(`${game.turns} turns`);
  return el("li", { "data-game-id": game.game_id },
    el("a", { href: `/library/games/${encodeURIComponent(game.game_id)}` },
      el("strong", { class: "name" }, game.name), game.simulated ? el("span", { class: "tag" }, "simulated") : null,
      el("span", { class: "meta" }, facts.join(" · "))));
}

async function showGames(token, words, more) {
  const asked = new URLSearchParams(words);
  if (more) asked.set("offset", String(shelf.shown));
  const answer = await api("GET", `/api/library/games?${asked}`, undefined, token);
  if (answer.status !== 200) {
    refusal("The games could not be listed", answer);
    return false;
  }
  const page = answer.body;
  offerChoices(page.games_known, page.people);
  fillFilters(words);
  const list = document.getElementById("library-games");
  const items = page.shown.games.map(gameItem);
  if (more) list.append(...items);
  else list.replaceChildren(...items);
  shelf.shown = (more ? shelf.shown : 0) + items.length;
  const total = page.shown.total;
  document.getElementById("count").textContent =
    total === 0 ? "No game of the library matches." : `${total} game${total === 1 ? "" : "s"}${shelf.shown < total ? `, the newest ${shelf.shown} shown` : ""}`;
  document.getElementById("more").hidden = shelf.shown >= total;
  document.body.dataset.total = String(total);
  return true;
}

async function showCharts(token, words) {
  // the charts count real games, or every game (simulated ones too) when the list shows any simulated game
  const asked = new URLSearchParams();
  if (words.get("game")) asked.set("game", words.get("game"));
  if (words.get("simulated") && words.get("simulated") !== "real") asked.set("simulated", "all");
  const answer = await api("GET", `/api/library/charts?${asked}`, undefined, token);
  if (answer.status !== 200) {
    refusal("The charts could not be drawn", answer);
    return;
  }
  document.getElementById("charts").replaceChildren(...answer.body.map((chart) =>
    el("figure", { class: "chart", "data-chart": chart.key },
      svgNode(chart.svg, chart.title),
      el("figcaption", null, `${chart.title} (${chart.games} game${chart.games === 1 ? "" : "s"})`))));
  document.getElementById("charts-note").textContent = asked.get("simulated")
    ? "Counting simulated games too." : "Games played at a table only.";
}

async function showLibrary(words) {
  const token = libraryToken();
  if (!token) return;
  document.getElementById("who").textContent = "host";
  document.body.dataset.ready = "";
  document.getElementById("said").hidden = true;
  history.replaceState(null, "", words.toString() ? `/library?${words}` : "/library");
  // the list and the charts are asked for at once: each is its own query of the library
  const [listed] = await Promise.all([showGames(token, words, false), showCharts(token, words)]);
  document.body.dataset.ready = listed ? words.toString() || "all" : "refused";
}

function startLibrary() {
  const words = new URLSearchParams(window.location.search);
  for (const key of [...words.keys()]) if (!FILTERS.includes(key)) words.delete(key);
  fillFilters(words);
  const form = document.getElementById("filters");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    showLibrary(chosenFilters());
  });
  form.addEventListener("reset", (event) => {
    event.preventDefault();
    fillFilters(new URLSearchParams());
    showLibrary(new URLSearchParams());
  });
  document.getElementById("more").addEventListener("click", () => {
    const token = libraryToken();
    if (token) showGames(token, chosenFilters(), true);
  });
  showLibrary(words);
}

// --------------------------------------------------------------------------- one stored game

// The replay's steps are every event, #1 to #last: stepping needs no list. The list of steps is read a page at a
// time (GET .../steps?after=), as it is opened and as "More steps" asks: a long game's page costs what a short one's does.
const replay = { id: null, token: null, last: 0, next: null, at: null, asked: 0 };

function storedId() {
  const parts = window.location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[2] || "");
}

async function showStep(seq) {
  if (!Number.isInteger(seq) || seq < 1 || seq > replay.last) {
    refusal("No such step", { body: { message: `the replay has steps #1 to #${replay.last}` } });
    return;
  }
  const asked = ++replay.asked;  // only the last step asked for is drawn, however the answers arrive
  const answer = await api("GET", `/api/library/games/${encodeURIComponent(replay.id)}/steps/${seq}`, undefined, replay.token);
  if (asked !== replay.asked) return;
  if (answer.status !== 200) {
    refusal("The step could not be drawn", answer);
    return;
  }
  document.getElementById("said").hidden = true;
  const step = answer.body;
  replay.at = step.seq;
  document.getElementById("board").replaceChildren(svgNode(step.svg, `the table after step ${step.seq}`));
  document.getElementById("step-text").replaceChildren(
    el("span", { class: "pos" }, `#${step.seq} of ${step.last}`), " ", step.text,
    step.to_act ? el("span", { class: "meta" }, ` · then ${step.to_act}`) : null);
  document.getElementById("jump-seq").value = String(step.seq);
  document.getElementById("prev").disabled = step.seq === 1;
  document.getElementById("first").disabled = step.seq === 1;
  document.getElementById("next").disabled = step.seq === replay.last;
  document.getElementById("last").disabled = step.seq === replay.last;
  for (const item of document.querySelectorAll("#steps li")) item.classList.toggle("here", item.dataset.seq === String(step.seq));
  document.body.dataset.step = String(step.seq);
}

function stepBy(delta) {
  const seq = replay.at + delta;
  if (seq >= 1 && seq <= replay.last) showStep(seq);
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const where = event.target;
  if (where && (where.tagName === "INPUT" || where.tagName === "SELECT" || where.tagName === "TEXTAREA")) return;
  const moves = { ArrowRight: 1, ArrowLeft: -1, j: 1, k: -1 };
  if (event.key in moves) {
    event.preventDefault();
    stepBy(moves[event.key]);
  } else if (event.key === "Home") {
    event.preventDefault();
    showStep(1);
  } else if (event.key === "End") {
    event.preventDefault();
    showStep(replay.last);
  }
}

function listSteps(steps, next) {
  // the steps of a page appended to the list, then "More steps" while the replay has more
  const list = document.getElementById("steps");
  const more = document.getElementById("more-steps");
  if (more) more.remove();
  list.append(...steps.map((step) =>
    el("li", { "data-seq": step.seq, class: [step.voided ? "voided" : "", step.seq === replay.at ? "here" : ""].join(" ").trim() || null },
      el("button", { type: "button", class: "step", onclick: () => showStep(step.seq) }, `#${step.seq} ${step.text}`))));
  replay.next = next;
  if (next !== null) {
    list.append(el("li", { id: "more-steps" }, el("button", { type: "button", class: "quiet", onclick: moreSteps },
      `More steps (#${next + 1} to #${replay.last})`)));
  }
}

async function moreSteps() {
  if (replay.next === null) return;
  const answer = await api("GET", `/api/library/games/${encodeURIComponent(replay.id)}/steps?after=${replay.next}`, undefined, replay.token);
  if (answer.status !== 200) {
    refusal("The steps could not be read", answer);
    return;
  }
  listSteps(answer.body.steps, answer.body.next);
}

async function startStoredGame() {
  const token = libraryToken();
  if (!token) return;
  document.getElementById("who").textContent = "host";
  replay.id = storedId();
  replay.token = token;
  const answer = await api("GET", `/api/library/games/${encodeURIComponent(replay.id)}`, undefined, token);
  if (answer.status !== 200) {
    refusal("This game cannot be shown", answer);
    document.body.dataset.ready = "refused";
    return;
  }
  const detail = answer.body;
  const game = detail.game;
  document.getElementById("title").textContent =
    `${game.name} · ${game.game} · ${game.started_at ? game.started_at.slice(0, 10) : "no date"}`;
  document.title = `tally: ${game.name}`;
  document.getElementById("banner").replaceChildren(
    el("span", { class: "pos" }, game.game_id),
    `${game.players.join(", ")}${game.simulated ? " · simulated" : ""} · `,
    detail.outcome ? `${detail.outcome.reason}: ${Object.entries(detail.outcome.scores).map(([who, score]) => `${who} ${score}`).join(", ")}`
      : "unfinished");
  document.getElementById("chart").replaceChildren(el("figure", { class: "chart", "data-chart": detail.chart.key },
    svgNode(detail.chart.svg, detail.chart.title), el("figcaption", null, detail.chart.title)));
  replay.last = detail.last;
  document.getElementById("jump-seq").max = String(replay.last);
  document.getElementById("jump-last").textContent = `of ${replay.last}`;
  listSteps(detail.steps, detail.next);
  document.getElementById("prev").addEventListener("click", () => stepBy(-1));
  document.getElementById("next").addEventListener("click", () => stepBy(1));
  document.getElementById("first").addEventListener("click", () => showStep(1));
  document.getElementById("last").addEventListener("click", () => showStep(replay.last));
  document.getElementById("jump").addEventListener("submit", (event) => {
    event.preventDefault();
    const seq = Number(document.getElementById("jump-seq").value);
    if (Number.isInteger(seq)) showStep(seq);
  });
  document.addEventListener("keydown", onKey);
  document.body.dataset.ready = "game";
  await showStep(1);
}

if (document.body.dataset.page === "library") startLibrary();
else if (document.body.dataset.page === "library-game") startStoredGame();
