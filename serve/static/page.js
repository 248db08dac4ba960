// The table's page: everything it shows comes from the API of `tally serve` (and the board's picture, drawn by the
// server from the same view). No framework, no build step: text is always set as text, never parsed as HTML.
"use strict";

const TOKEN_KEY = "tally.host";  // the host's token, taken out of the host link once
const seatKey = (id) => `tally.seat.${id}`;  // a joined seat's {seat, token}, per game

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// --------------------------------------------------------------------------- tokens

function takeTokenFromUrl() {
  // A host link carries the host token once (`?token=` or `#token=`): keep it, and take it out of the address bar,
  // the history and any later referrer.
  const url = new URL(window.location.href);
  const fromHash = new URLSearchParams(url.hash.slice(1)).get("token");
  const token = url.searchParams.get("token") || fromHash;
  if (!token) return;
  localStorage.setItem(TOKEN_KEY, token);
  url.searchParams.delete("token");
  url.hash = "";
  history.replaceState(null, "", url.pathname + url.search);
}

function takeSeatLinkFromUrl() {
  // A seat's one-time link carries its secret once (`#seat=`): kept for `settle` to claim the seat with, and taken
  // out of the address bar and the history at once, as the host link's token is.
  const url = new URL(window.location.href);
  const secret = new URLSearchParams(url.hash.slice(1)).get("seat");
  if (!secret) return null;
  history.replaceState(null, "", url.pathname + url.search);
  return secret;
}

function hostToken() {
  return localStorage.getItem(TOKEN_KEY);
}

function seatOf(id) {
  try {
    const held = JSON.parse(localStorage.getItem(seatKey(id)) || "null");
    return held && held.seat && held.token ? held : null;
  } catch (_) {
    return null;
  }
}

// The caller this page speaks for: a joined seat first (a phone at the table), else the host, else a watcher.
function caller(id) {
  const seat = id ? seatOf(id) : null;
  if (seat) return { kind: "seat", seat: seat.seat, token: seat.token };
  const host = hostToken();
  if (host) return { kind: "host", seat: null, token: host };
  return { kind: "watcher", seat: null, token: null };
}

// --------------------------------------------------------------------------- the API

async function api(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
                                   cache: "no-store" });
  } catch (error) {
    if (typeof markOffline === "function") markOffline();  // offline.js (the game's page)
    return { status: 0, body: { message: `the host cannot be reached (${error.message})` } };
  }
  if (typeof markOnline === "function") markOnline();
  let parsed = null;
  const text = await response.text();
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch (_) {
    parsed = { message: text };
  }
  return { status: response.status, body: parsed };
}

function errorText(body) {
  if (!body) return "no answer";
  return body.notation_error || body.message || body.error || JSON.stringify(body);
}

// --------------------------------------------------------------------------- the list of games

async function showIndex() {
  const me = caller(null);
  document.getElementById("who").textContent = me.kind === "host" ? "host" : "watching";
  const list = document.getElementById("games");
  const answer = await api("GET", "/api/games", undefined, me.token);
  const said = document.getElementById("said");
  if (answer.status !== 200) {
    said.textContent = `The games could not be listed: ${errorText(answer.body)}`;
    return;
  }
  const games = Array.isArray(answer.body) ? answer.body : answer.body.games || [];
  list.replaceChildren(...games.map((game) => {
    if (game.damage) {
      return el("li", { class: "damaged" }, el("a", { href: `/games/${encodeURIComponent(game.id)}` },
        el("strong", null, game.id), " · cannot be read",
        el("span", { class: "meta" }, game.damage.message)));
    }
    const state = game.ended ? "ended" : `${game.to_act || game.who_acts || "?"} to act`;
    return el("li", null, el("a", { href: `/games/${encodeURIComponent(game.id)}` },
      el("strong", null, game.id), ` · ${game.game}`,
      el("span", { class: "meta" }, `${(game.seats || []).join(", ")} · ${game.mode} · #${game.seq} · ${state}`)));
  }));
  if (me.kind === "host") await showStartForm();
  if (!games.length) {
    said.textContent = me.kind === "host" ? "No games yet: start one below."
      : "No games yet: the host starts one on the host's page (the link `tally serve` printed).";
  }
}

// --------------------------------------------------------------------------- starting a game (the host's list)

const start = { catalog: [] };

function playerInput(index, value) {
  return el("label", null, `Player ${index + 1} `,
    el("input", { name: "player", value: value || "", autocomplete: "off", spellcheck: "false", required: true,
      autocapitalize: "none", placeholder: ["ana", "ben", "cy", "dee", "eve", "fin"][index] || "name" }));
}

function chosenGame() {
  const name = document.getElementById("start-game").value;
  return start.catalog.find((game) => game.name === name) || start.catalog[0];
}

function playerNames() {
  return [...document.querySelectorAll("#start-players input")].map((input) => input.value.trim());
}

function drawSeated() {
  // every player enters their own hidden cards unless the host unticks them (table mode only: open deals them all)
  const box = document.getElementById("start-seated");
  const ticked = new Set([...box.querySelectorAll("input:not(:checked)")].map((input) => input.value));
  box.hidden = document.getElementById("start-mode").value !== "table";
  box.replaceChildren(box.querySelector("legend"), ...playerNames().map((name, i) => el("label", null,
    el("input", { type: "checkbox", value: name || `#${i + 1}`, checked: !ticked.has(name || `#${i + 1}`) }),
    ` ${name || `player ${i + 1}`}`)));
}

function drawGameChoice() {
  const game = chosenGame();
  const players = document.getElementById("start-players");
  const names = playerNames();
  const count = Math.min(Math.max(names.length, game.players[0]), game.players[1]);
  players.replaceChildren(players.querySelector("legend"), ...Array.from({ length: count }, (_, i) => playerInput(i, names[i])));
  players.addEventListener("input", drawSeated);
  const mode = document.getElementById("start-mode");
  for (const option of mode.options) option.disabled = !game.modes.includes(option.value);
  if (!game.modes.includes(mode.value)) mode.value = game.modes[0];
  const options = document.getElementById("start-options");
  options.replaceChildren(options.querySelector("legend"), ...game.options.map((option) => el("label", { title: option.help },
    `${option.key} `,
    option.choices.length
      ? el("select", { name: option.key, "data-option": option.key },
        ...option.choices.map((choice) => el("option", { value: choice, selected: choice === option.default }, choice)))
      : el("input", { name: option.key, "data-option": option.key, type: "number", value: option.default,
        min: option.minimum ?? undefined, max: option.maximum ?? undefined, inputmode: "numeric" }),
    el("span", { class: "meta" }, option.help))));
  options.hidden = game.options.length === 0;
  drawSeated();
}

async function showStartForm() {
  const answer = await api("GET", "/api/catalog");
  if (answer.status !== 200) return;
  start.catalog = answer.body.games;
  const select = document.getElementById("start-game");
  select.replaceChildren(...start.catalog.map((game) => el("option", { value: game.name },
    `${game.title} (${game.players[0]}-${game.players[1]} players)`)));
  document.getElementById("start").hidden = false;
  select.addEventListener("change", drawGameChoice);
  document.getElementById("start-mode").addEventListener("change", drawSeated);
  document.getElementById("add-player").addEventListener("click", () => {
    const players = document.getElementById("start-players");
    const count = players.querySelectorAll("input").length;
    if (count < chosenGame().players[1]) players.append(playerInput(count));
    drawSeated();
  });
  document.getElementById("drop-player").addEventListener("click", () => {
    const inputs = document.querySelectorAll("#start-players label");
    if (inputs.length > chosenGame().players[0]) inputs[inputs.length - 1].remove();
    drawSeated();
  });
  document.getElementById("start-form").addEventListener("submit", (event) => {
    event.preventDefault();
    startGame();
  });
  drawGameChoice();
}

async function startGame() {
  // Validated by the server exactly as `tally new` validates it: its messages are shown as they are.
  const game = chosenGame();
  const players = playerNames();
  const mode = document.getElementById("start-mode").value;
  const seated = mode === "table"
    ? [...document.querySelectorAll("#start-seated input:checked")].map((input) => input.value) : [];
  const options = {};
  for (const field of document.querySelectorAll("#start-options [data-option]")) options[field.dataset.option] = field.value;
  const body = { game: game.name, players, mode, seated, options };
  const name = document.getElementById("start-name").value.trim();
  if (name) body.id = name;
  const said = document.getElementById("said");
  const answer = await api("POST", "/api/games", body, hostToken());
  if (answer.status !== 201) {
    said.className = "said bad";
    said.textContent = `The game was not started: ${errorText(answer.body)}`;
    return;
  }
  window.location.assign(`/games/${encodeURIComponent(answer.body.log.replace(/\.jsonl$/, ""))}`);
}

// --------------------------------------------------------------------------- one game

const table = {
  id: null, me: null, seq: null, fingerprint: null, seats: [], moves: [], namings: [], waiting: [], owed: [], view: null,
  lastSeq: 0, refreshing: null, again: false, wanted: 0, drawnMoves: null, opened: new Set(), place: null, link: null,
};

function gameId() {
  const parts = window.location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[1] || "");
}

function say(kind, lines, rulings) {
  // The answer is shown where the player acted (under the form they used, or above the move buttons), so a
  // thumb that typed a move below the board sees its ruling without scrolling back up.
  const said = document.getElementById("said");
  if (table.place) table.place.after(said);
  else document.querySelector(".act").prepend(said);
  said.hidden = false;
  said.className = `said ${kind}`;
  said.dataset.seq = String(table.seq ?? 0);  // cleared by the next event (answers.js); a write's answer says where
  said.replaceChildren(...lines.map((line, i) => (i ? `\n${line}` : line)));
  for (const ruling of rulings || []) {
    said.append(el("span", { class: "rule", "data-rule": ruling.rule },
      `${ruling.message}`, ruling.text ? ` (${ruling.rule}: ${ruling.text})` : ` (${ruling.rule})`));
  }
}

function kindOf(move) {
  const bare = move.replace(/^[^:\s]+:\s*/, "");
  return bare.split(/\s+/)[0] || move;
}

function playerOf(move) {
  const found = /^([^:\s]+):\s/.exec(move);
  return found ? found[1] : null;
}

function isMine(move) {
  // The host records for anyone; a seat its own moves and the table's entries (a move that names no player).
  if (table.me.kind === "host") return true;
  if (table.me.kind !== "seat") return false;
  const player = playerOf(move);
  return player === null || player === table.me.seat;
}

function drawMoves(listed) {
  const box = document.getElementById("moves");
  const list = document.getElementById("move-list");
  const moves = listed.map((move) => move.trim()).filter(isMine);
  list.replaceChildren(...moves.map((move) => el("option", { value: move })));
  const prompt = owedPrompt();
  // the moves that name cards are entered with the card picker (picker.js): the caller's own and the table's
  const namings = table.namings.filter(isMyNaming);
  if (!moves.length && !namings.length) {
    const why = table.me.kind === "watcher" ? "Join a seat to record moves."
      : table.view && table.view.outcome ? "The game is over."
      : prompt ? null
      : isDue() ? "Yours to enter: no move can be listed for it. Type it in “Any move” below, as the line above says."
      : `No move of yours is due now${waitingFor()}.`;
    box.replaceChildren(...[prompt, why && el("p", { class: "none" }, why)].filter(Boolean));
    return;
  }
  box.replaceChildren(...(prompt ? [prompt] : []), ...movesPanel(moves, namings));
}

function shortened(move) {
  // On a seat's own page "ana: " says nothing: the button shows the move, its data-move the whole of it.
  return table.me.seat && playerOf(move) === table.me.seat ? move.slice(move.indexOf(":") + 1).trim() : move;
}

function scoresOf(outcome) {
  return Object.entries(outcome.scores || {}).map(([seat, score]) => `${seat} ${score}`).join(" · ");
}

function isDue() {
  // this page's seat is one the table waits on: the seat to act, one still to name its own hidden cards, or the
  // seat asked to make the table's entry (the dealer)
  return Boolean(table.me.seat) && (table.waiting.includes(table.me.seat) || myDues().length > 0);
}

function drawBanner(view) {
  const banner = document.getElementById("banner");
  const over = Boolean(view.outcome);
  const mine = isDue();
  banner.className = `banner${over ? " over" : ""}${mine ? " mine" : ""}`;
  banner.dataset.toAct = view.to_act || "";
  const pos = el("span", { class: "pos", "data-seq": table.seq }, `#${table.seq} ${(table.fingerprint || "").slice(0, 8)}`);
  const words = over ? `Game over: ${view.outcome.reason}` : (mine ? `Your turn: ${view.expected}` : view.expected);
  banner.replaceChildren(pos, " ", el("span", { class: "expected" }, words));
  if (!over) drawOwing(banner, view);
  if (over) banner.append(el("span", { class: "pending" }, scoresOf(view.outcome)));
  else if (typeof view.pending === "string" && view.pending) banner.append(el("span", { class: "pending" }, `pending: ${view.pending}`));
}

async function fetchBoard() {
  try {
    const answer = await fetch(`/games/${encodeURIComponent(table.id)}/picture.svg`, {
      headers: table.me.token ? { Authorization: `Bearer ${table.me.token}` } : {}, cache: "no-store" });
    return { ok: answer.ok, seq: Number(answer.headers.get("X-Tally-Seq")), text: await answer.text() };
  } catch (_) {
    return { ok: false, seq: null, text: "" };
  }
}

function drawBoard(drawn) {
  const board = document.getElementById("board");
  if (!drawn.ok) {
    board.replaceChildren(el("p", { class: "empty" }, "The board cannot be drawn now."));
    return;
  }
  const parsed = new DOMParser().parseFromString(drawn.text, "image/svg+xml");
  const picture = parsed.documentElement;
  if (picture.nodeName !== "svg") return;
  for (const script of picture.querySelectorAll("script")) script.remove();  // the server escapes; this is a second guard
  picture.removeAttribute("width");
  picture.removeAttribute("height");
  board.replaceChildren(document.importNode(picture, true));
}

async function refresh(asked = true) {
  // One refresh at a time; events arriving meanwhile ask for one more only when the read under way may predate them
  // (a stream event the view already holds redraws nothing), so a burst of events is one redraw.
  if (table.refreshing) {
    if (asked) table.again = true;
    return table.refreshing;
  }
  table.refreshing = (async () => {
    do {
      table.again = false;
      // the view, the listing and the picture at once; one of an older seq than the view is read again
      const [state, moves, drawn, names] = await Promise.all([
        api("GET", `/api/games/${encodeURIComponent(table.id)}`, undefined, table.me.token),
        api("GET", `/api/games/${encodeURIComponent(table.id)}/moves`, undefined, table.me.token),
        fetchBoard(),
        api("GET", `/api/games/${encodeURIComponent(table.id)}/names`, undefined, table.me.token),
      ]);
      if (state.status !== 200) {
        say("bad", [`The game cannot be read: ${errorText(state.body)}`]);
        break;
      }
      const view = state.body;
      table.view = view;
      table.seq = view.seq;
      table.fingerprint = view.fingerprint;
      const listed = moves.status === 200 && moves.body.seq === view.seq;
      table.moves = listed ? (moves.body.moves || []) : [];
      table.namings = names.status === 200 && names.body.seq === view.seq ? names.body.namings : [];
      if (table.namings.length) await loadPieces(table.id, table.me.token);  // the box's pictures, read once
      if (names.status === 200 && names.body.seq !== view.seq) table.again = true;
      // several seats may be due at once (each naming its own dealt hand): the listing says which
      table.waiting = listed ? (moves.body.waiting_on || []) : (view.to_act ? [view.to_act] : []);
      table.owed = listed ? (moves.body.owed || []) : [];
      if ((moves.status === 200 && moves.body.seq !== view.seq) || (drawn.ok && drawn.seq !== view.seq)) table.again = true;
      drawBanner(view);
      document.getElementById("typed").hidden = Boolean(view.outcome);  // no move is legal once over: no box for one
      await showBgStats(view);
      // a redraw of what is drawn already would close the picker a thumb is filling in
      const drawing = JSON.stringify([table.seq, table.me, table.moves, table.namings, table.waiting, table.owed]);
      if (drawing !== table.drawnMoves) drawMoves(table.moves);
      table.drawnMoves = drawing;
      drawBoard(drawn);
      showOutline();
      if (table.me.kind === "host") await Promise.all([showConflicts(), showSeats()]);  // a seat taken since shows so
      // what this page shows now, for whom: a redraw is whole once these are set
      document.body.dataset.viewer = table.me.seat || table.me.kind;
      clearStaleAnswer(table.seq);
      historyMoved(table.seq);
      // an event streamed during the read is not in it: read once more (once: a log restored shorter, or a server
      // not told yet, must not keep the page reading)
      if (table.wanted > table.seq) table.again = true;
      table.wanted = 0;
      // the page is settled at this seq only when no second read follows (a test waits for this mark)
      if (!table.again) document.body.dataset.seq = String(table.seq);
    } while (table.again);
  })();
  try {
    await table.refreshing;
  } finally {
    table.refreshing = null;
  }
}

async function showBgStats(view) {
  // A finished game's play for BG Stats: the server makes it and its link (as `tally export --format bgstats`
  // does), dated in this phone's time zone; asked once per position.
  const section = document.getElementById("bgstats");
  if (!view.outcome) {
    section.hidden = true;
    table.bgstats = null;
    return;
  }
  if (table.bgstats === table.seq) return;
  table.bgstats = table.seq;
  const path = `/api/games/${encodeURIComponent(table.id)}/bgstats`;
  const zone = (Intl.DateTimeFormat().resolvedOptions() || {}).timeZone;
  let answer = await api("GET", zone ? `${path}?timezone=${encodeURIComponent(zone)}` : path, undefined, table.me.token);
  if (answer.status === 400 && zone) answer = await api("GET", path, undefined, table.me.token);  // a zone the server lacks
  const link = document.getElementById("bgstats-link");
  section.hidden = false;
  if (answer.status !== 200) {
    link.hidden = true;
    document.getElementById("bgstats-qr").replaceChildren();
    document.getElementById("bgstats-note").textContent = errorText(answer.body);
    return;
  }
  const pushed = answer.body;
  link.hidden = false;
  link.href = pushed.link;
  document.getElementById("bgstats-qr").replaceChildren(qrNode(pushed.qr, "the play's link for BG Stats as a QR code"));
  document.getElementById("bgstats-note").textContent =
    `Played ${pushed.play.playDate} (${pushed.timezone})${pushed.play.durationMin !== undefined ? `, ${pushed.play.durationMin} min` : ""}.`;
}

async function showConflicts() {
  // The host sees every seat's move that another seat's hidden entries forbade, with the whole table's rulings,
  // which name both entries; the seat that sent it was told only that it clashes.
  const answer = await api("GET", `/api/games/${encodeURIComponent(table.id)}/conflicts`, undefined, table.me.token);
  const found = answer.status === 200 && Array.isArray(answer.body) ? answer.body : [];
  const list = document.getElementById("conflict-list");
  list.replaceChildren(...found.slice().reverse().map((conflict) => el("li", { "data-seat": conflict.seat },
    `${conflict.seat} entered "${conflict.move}" after #${conflict.seq}: `,
    ...conflict.rulings.map((ruling) => el("span", { class: "rule", "data-rule": ruling.rule },
      `${ruling.message} [${ruling.rule}]`)))));
  document.getElementById("conflicts").hidden = found.length === 0;
}

function explain(answer, what) {
  const body = answer.body || {};
  if (answer.status === 409) {
    const now = body.seq ?? "?";
    say("bad", [`The table moved on (now #${now}): the board is redrawn and ${what} was not recorded. Look, then try again.`]);
    return;
  }
  if (answer.status === 422) {
    say("bad", [`Refused: ${what} breaks a rule, nothing recorded.`], body.rulings || (body.report && body.report.rulings));
    return;
  }
  if (answer.status === 400) {
    say("bad", [`Not readable, nothing recorded: ${errorText(body)}`, "See “How moves are written” below."]);
    return;
  }
  if (answer.status === 403) {
    say("bad", [`Not for this page's seat: ${errorText(body)}`]);
    return;
  }
  if (answer.status === 401) {
    say("bad", [`This page holds no seat or host token that the host accepts: ${errorText(body)}`]);
    return;
  }
  say("bad", [`The host refused it (${answer.status || "no answer"}): ${errorText(body)}`]);
}

function announce(report, fallback) {
  // exactly the events recorded, as the server words each for this caller (answers.js)
  say("good", echoLines(report, fallback), (report.rulings || []).filter((r) => r.verdict === "unverifiable"));
}

async function busy(work) {
  const buttons = document.querySelectorAll("button");
  buttons.forEach((b) => { b.disabled = true; });
  try {
    await work();
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

async function post(path, body, what, onDone) {
  return deliver(path, { ...body, expected_seq: table.seq }, what, onDone);
}

async function deliver(path, sent, what, onDone, resent) {
  // `sent` holds the expected_seq of the moment of the tap: a tap made offline is kept so (offline.js) and sent later
  const answer = await api("POST", `/api/games/${encodeURIComponent(table.id)}/${path}`, sent, table.me.token);
  if (answer.status === 0) {
    if (!resent) keepOffline(path, sent, what, onDone);
    return 0;
  }
  if (answer.status === 200 || answer.status === 201) {
    onDone(answer.body || {});
  } else {
    explain(answer, what);
  }
  markAnswer(answeredAt(answer, sent.expected_seq));
  await refresh();
  return answer.status;
}

function record(move, recorded) {
  // `recorded`: what else is done once the move is recorded, before the page is redrawn
  return busy(() => post("moves", { move }, `"${move}"`, (report) => {
    announce(report, `Recorded: ${move}`);
    document.getElementById("move-text").value = "";
    if (recorded) recorded(report);
  }));
}

function dispute(move) {
  return busy(async () => {
    const answer = await api("POST", `/api/games/${encodeURIComponent(table.id)}/rule`,
                             { move, expected_seq: table.seq }, table.me.token);
    const report = answer.body || {};
    if (answer.status === 200 || answer.status === 201 || (answer.status === 422 && report.verdict)) {
      const verdict = report.verdict || (answer.status === 422 ? "illegal" : "legal");
      say(verdict === "illegal" || verdict === "unreadable" ? "bad" : "good",
          [`"${move}" is ${verdict}: nothing was recorded.`].concat(report.notation_error ? [report.notation_error] : []),
          report.rulings);
    } else {
      explain(answer, "the question");
    }
  });
}

async function join(seat, code) {
  const answer = await api("POST", `/api/games/${encodeURIComponent(table.id)}/join`, { seat, code }, hostToken());
  if (answer.status !== 200 && answer.status !== 201) {
    say("bad", [`Could not join as ${seat}: ${errorText(answer.body)}`]);
    return;
  }
  localStorage.setItem(seatKey(table.id), JSON.stringify({ seat, token: answer.body.token }));
  say("good", [`You hold ${seat}'s seat: you see what ${seat} sees, and record ${seat}'s moves and cards.`]);
  await settle();
}

async function newCode() {
  // The host's screen shows the code the phones at the table type to take their seats.
  const answer = await api("POST", `/api/games/${encodeURIComponent(table.id)}/code`, undefined, hostToken());
  const shown = document.getElementById("join-code-shown");
  if (answer.status === 201 && answer.body && answer.body.code) shown.textContent = answer.body.code;
  else say("bad", [`No join code: ${errorText(answer.body)}`]);
}

function leave() {
  // one tap asks, a second leaves: a seat left by mistake is the host's to give again
  const button = document.getElementById("leave");
  if (!button.dataset.asked) {
    button.dataset.asked = "yes";
    button.textContent = "Tap again to leave (the host can give the seat again)";
    return Promise.resolve();
  }
  delete button.dataset.asked;
  button.textContent = "Leave this seat";
  localStorage.removeItem(seatKey(table.id));
  say("good", ["You left the seat."]);
  return settle();
}

function qrNode(svg, label) {
  const parsed = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
  if (parsed.nodeName !== "svg") return el("span", null, "");
  for (const script of parsed.querySelectorAll("script")) script.remove();
  const node = document.importNode(parsed, true);
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", label);
  node.classList.add("qr");
  return node;
}

function seatItem(entry) {
  const absolute = entry.link ? new URL(entry.link, window.location.origin).href : null;
  return el("li", { "data-seat": entry.seat, class: entry.taken ? "taken" : "free" },
    el("strong", null, entry.seat), ` · ${entry.taken ? "a phone holds it" : "free"}`,
    entry.link ? el("div", { class: "link" }, qrNode(entry.qr, `${entry.seat}'s seat link as a QR code`),
      el("a", { href: absolute, class: "seat-link", "data-seat-link": entry.seat }, `${entry.seat}'s link`)) : null,
    el("button", { type: "button", class: "quiet", "data-give": entry.seat,
      onclick: () => busy(() => giveSeat(entry.seat)) },
      entry.taken ? `Give ${entry.seat}'s seat to another phone` : `New link for ${entry.seat}`));
}

async function showSeats() {
  // the host's page: every seat, whether a phone holds it, its one-time link as a QR code; the join code (the same
  // after a reload). A seat no phone holds is shown its link at once (made now if this server shows none), so the
  // host of a game just started only holds the screen up to each phone.
  const path = `/api/games/${encodeURIComponent(table.id)}/seats`;
  let answer = await api("GET", path, undefined, hostToken());
  if (answer.status !== 200) return;
  const unlinked = answer.body.seats.filter((entry) => !entry.taken && !entry.link);
  if (unlinked.length) {
    for (const entry of unlinked) {
      await api("POST", `${path}/${encodeURIComponent(entry.seat)}/link`, undefined, hostToken());
    }
    answer = await api("GET", path, undefined, hostToken());
    if (answer.status !== 200) return;
  }
  if (answer.body.code) document.getElementById("join-code-shown").textContent = answer.body.code;
  document.getElementById("seat-list").replaceChildren(...answer.body.seats.map(seatItem));
}

async function giveSeat(seat) {
  const answer = await api("POST", `/api/games/${encodeURIComponent(table.id)}/seats/${encodeURIComponent(seat)}/link`,
    undefined, hostToken());
  if (answer.status !== 201) say("bad", [`No link for ${seat}: ${errorText(answer.body)}`]);
  await showSeats();
}

async function movePhone() {
  // a seat shows its own link again as a QR code: the phone that opens it takes the seat, and this one is let go
  const answer = await api("POST", `/api/games/${encodeURIComponent(table.id)}/seats/${encodeURIComponent(table.me.seat)}/link`,
    undefined, table.me.token);
  const moving = document.getElementById("moving");
  if (answer.status !== 201) {
    say("bad", [`No link: ${errorText(answer.body)}`]);
    return;
  }
  moving.hidden = false;
  moving.replaceChildren(el("p", null, `Open this on the phone that takes ${table.me.seat}'s seat; this page is let go then.`),
    qrNode(answer.body.qr, `${table.me.seat}'s seat link as a QR code`),
    el("a", { href: new URL(answer.body.link, window.location.origin).href, class: "seat-link" }, "the link"));
}

async function claimSeat(secret) {
  const answer = await api("POST", `/api/games/${encodeURIComponent(table.id)}/claim`, { link: secret });
  if (answer.status !== 201) {
    say("bad", [`This seat link does not work: ${errorText(answer.body)}`]);
    return;
  }
  localStorage.setItem(seatKey(table.id), JSON.stringify({ seat: answer.body.seat, token: answer.body.token }));
  say("good", [`You hold ${answer.body.seat}'s seat: you see what ${answer.body.seat} sees, and record ${answer.body.seat}'s moves and cards.`]);
}

async function settle() {
  // Who this page speaks for decides what it shows: the seat's own view, the host's, or what every player sees.
  table.me = caller(table.id);
  const seatLine = document.getElementById("seat-line");
  document.getElementById("who").textContent = table.me.kind === "seat" ? `seat: ${table.me.seat}` : table.me.kind;
  seatLine.textContent = table.me.kind === "seat" ? `This page is ${table.me.seat}'s seat.`
    : table.me.kind === "host" ? "This page is the host's: it may record any seat's move." : "Watching: join a seat to play.";
  document.getElementById("leave").hidden = table.me.kind !== "seat";
  document.getElementById("move-phone").hidden = table.me.kind !== "seat";
  document.getElementById("moving").hidden = true;
  document.getElementById("host").hidden = table.me.kind !== "host";
  const joinForm = document.getElementById("join");
  joinForm.hidden = table.me.kind === "seat";
  const select = document.getElementById("join-seat");
  select.replaceChildren(...table.seats.map((seat) => el("option", { value: seat }, seat)));
  if (stream) stream.abort();
  await refresh();
  // the stream resumes exactly after what was just drawn: the events before it are in the picture already
  table.lastSeq = table.seq || 0;
  restartStream();
}

// --------------------------------------------------------------------------- what each seat owes

// The listing's `owed` (the server works it out, on what this caller knows): who owes what now, and the documented
// form that types it where no button can. The page only shows it: each seat its own, the dealer the table's entry,
// the banner every seat still owing.

const TABLE = "table";

function myDues() {
  // what this page is asked to enter: a seat's own, and the table's entry it is asked to make (or any seat may, where
  // only typing makes it); the host's page makes any table's entry
  const me = table.me;
  if (me.kind === "host") return table.owed.filter((due) => due.seat === TABLE);
  if (me.kind !== "seat") return [];
  return table.owed.filter((due) => due.seat === me.seat
    || (due.seat === TABLE && (due.by === me.seat || (due.by === null && due.form))));
}

function owingNames() {
  // every seat the table waits on, in the listing's order: a seat owing, or the seat asked to make the table's entry
  const names = table.owed.map((due) => (due.seat === TABLE ? due.by || "the table" : due.seat));
  return [...new Set(names)];
}

function drawOwing(banner, view) {
  // named only where the line above does not say it already: several seats owe, or another than the one to act
  const names = owingNames();
  if (!names.length || (names.length === 1 && names[0] === view.to_act)) return;
  banner.append(el("span", { class: "owing", "data-owing": names.join(",") }, `Waiting on ${names.join(", ")}`));
}

function waitingFor() {
  // who the others are, for a page that owes nothing now, and what they enter where it is no turn's move (a hand, the
  // deal): the line above says what a turn is
  const others = table.owed.filter((due) => due.seat !== table.me.seat);
  if (!others.length) return "";
  const said = [...new Set(others.map((due) => {
    const who = due.seat === TABLE ? due.by || "the table" : due.seat;
    return due.form || due.seat === TABLE ? `${who} to enter ${due.what}` : who;
  }))];
  return `: waiting for ${said.join(said.some((words) => words.includes(" to enter ")) ? "; " : ", ")}`;
}

function typedForm(form) {
  // a bare move on a seat's page is its own: the form without `PLAYER: `
  return form.replace(/^PLAYER:\s*/, "");
}

function owedPrompt() {
  // what this page must enter that is no turn's move (the banner says a turn): a hand or cards to type, and how, with
  // a tap that starts typing it in the form's words; the table's entry it is asked to make
  const mine = myDues().filter((due) => due.form || due.seat === TABLE);
  if (!mine.length) return null;
  return el("div", { class: "owed", id: "owed" }, ...mine.map((due) => {
    const form = due.form ? typedForm(due.form) : null;
    const whose = due.seat === TABLE ? "For the table, yours to enter" : "Yours to enter";
    // where this page's card picker makes it, the prompt says so; typing it stays the other way
    const picked = form !== null && pickerFor(due, form);
    return el("p", { "data-owed": due.seat, "data-form": form, "data-picker": picked ? "yes" : null },
      `${whose}: ${due.what}`,
      picked ? ": tap its cards below, then Record. Or type it as " : form ? ". Type it as " : ".",
      form ? el("code", null, form) : null,
      form ? el("button", { type: "button", class: "quiet", "data-type": form, onclick: () => startTyping(form) }, "Type it")
        : null);
  }));
}

function pickerFor(due, form) {
  // whether a picker of this page enters what is due: one of the due's kind, for the seat that owes it (the table's
  // entry: for nobody in particular)
  const player = due.seat === TABLE ? null : due.seat;
  return table.namings.some((naming) => isMyNaming(naming) && naming.kind === kindOf(form)
    && (naming.player ?? null) === player);
}

function startTyping(form) {
  // the form's first words (up to its first placeholder in capitals) in the text box, to go on from
  const input = document.getElementById("move-text");
  const words = [];
  for (const word of form.split(/\s+/)) {
    if (/^[A-Z\[]/.test(word)) break;
    words.push(word);
  }
  input.value = words.length ? `${words.join(" ")} ` : "";
  input.focus();
  input.scrollIntoView({ block: "center" });
}

// --------------------------------------------------------------------------- the live stream

let stream = null;

function restartStream() {
  if (stream) stream.abort();
  stream = new AbortController();
  follow(stream.signal);
}

async function follow(signal) {
  // Server-Sent Events read through fetch, so the seat's token goes in a header (an EventSource cannot send one);
  // after a dropped connection it resumes exactly after the last event seen (Last-Event-ID).
  while (!signal.aborted) {
    try {
      const headers = { Accept: "text/event-stream" };
      if (table.me.token) headers.Authorization = `Bearer ${table.me.token}`;
      if (table.lastSeq) headers["Last-Event-ID"] = String(table.lastSeq);
      const response = await fetch(`/api/games/${encodeURIComponent(table.id)}/stream`, { headers, signal, cache: "no-store" });
      if (!response.ok || !response.body) throw new Error(`stream ${response.status}`);
      markOnline();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, "\n");
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          arrived(block);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      if (!navigator.onLine) markOffline();
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function arrived(block) {
  let id = null;
  let data = false;
  let kind = "message";
  for (const line of block.split("\n")) {
    if (line.startsWith("id:")) id = line.slice(3).trim();
    else if (line.startsWith("data:")) data = true;
    else if (line.startsWith("event:")) kind = line.slice(6).trim();
  }
  if (kind === "resync" && id !== null && /^\d+$/.test(id)) {
    // the log was replaced (restored from a backup, rewritten): what this page drew is void; the stream goes on
    // after the seq it names, and the page reads the game again
    table.lastSeq = Number(id);
    table.wanted = Number(id);
    say("bad", ["The game's log was replaced on the host (restored or rewritten): the board is read again."]);
    refresh();
    return;
  }
  if (kind === "conflict") {
    // a seat's entry clashed with another's (the host's stream only): the host's list is read again
    if (table.me.kind === "host") showConflicts();
    return;
  }
  if (id !== null && /^\d+$/.test(id)) table.lastSeq = Math.max(table.lastSeq, Number(id));
  if (data && id !== null && Number(id) > (table.seq || 0)) {
    table.wanted = Math.max(table.wanted, Number(id));
    refresh(false);
  }
}

// --------------------------------------------------------------------------- wiring

async function showNotation() {
  // Filled once, when first opened: every form of the game's notation with its examples (a tap copies one).
  const box = document.getElementById("notation-forms");
  if (box.dataset.filled) return;
  const answer = await api("GET", `/games/${encodeURIComponent(table.id)}/notation`);
  if (answer.status !== 200) return;
  box.dataset.filled = "1";
  const entries = (answer.body.forms || []).concat(answer.body.shared || []);
  box.replaceChildren(...entries.map((entry) => el("div", { class: "form" },
    el("code", null, entry.form), el("span", null, ` ${entry.meaning}`),
    el("div", { class: "examples" }, ...(entry.examples || []).map((example) =>
      el("button", { type: "button", class: "quiet example", onclick: () => {
        const input = document.getElementById("move-text");
        input.value = example;
        input.focus();
      } }, example))))));
}

async function showGame() {
  table.id = gameId();
  document.getElementById("title").textContent = table.id;
  document.title = `tally: ${table.id}`;
  const listing = await api("GET", "/api/games", undefined, hostToken() || (seatOf(table.id) || {}).token);
  const games = listing.status === 200 ? (Array.isArray(listing.body) ? listing.body : listing.body.games || []) : [];
  const entry = games.find((game) => game.id === table.id);
  if (entry) {
    table.seats = entry.seats || [];
    document.getElementById("title").textContent = `${table.id} · ${entry.game}`;
  }
  document.getElementById("typed").addEventListener("submit", (event) => {
    event.preventDefault();
    table.place = event.currentTarget;
    const move = document.getElementById("move-text").value.trim();
    if (move) record(move);
  });
  document.getElementById("dispute").addEventListener("click", () => {
    table.place = document.getElementById("typed");
    const move = document.getElementById("move-text").value.trim();
    if (move) dispute(move);
  });
  document.getElementById("undo-form").addEventListener("submit", (event) => {
    event.preventDefault();
    table.place = event.currentTarget;
    const reason = document.getElementById("undo-reason").value.trim();
    busy(() => previewCorrection("undo", { reason }));  // history.js: shows what it takes back, asks once
  });
  document.getElementById("amend-form").addEventListener("submit", (event) => {
    event.preventDefault();
    table.place = event.currentTarget;
    const seq = Number(document.getElementById("amend-seq").value);
    const move = document.getElementById("amend-move").value.trim();
    const reason = document.getElementById("amend-reason").value.trim();
    busy(() => previewCorrection("amend", { target: seq, move: move || null, reason }));
  });
  document.getElementById("note-form").addEventListener("submit", (event) => {
    event.preventDefault();
    table.place = event.currentTarget;
    const text = document.getElementById("note-text").value.trim();
    busy(() => post("notes", { text }, "the note", (report) => {
      say("good", [`Noted at #${report.seq ?? "?"}.`]);
      document.getElementById("note-text").value = "";
    }));
  });
  document.getElementById("join").addEventListener("submit", (event) => {
    event.preventDefault();
    table.place = event.currentTarget;
    busy(() => join(document.getElementById("join-seat").value, document.getElementById("join-code").value.trim()));
  });
  document.getElementById("leave").addEventListener("click", () => busy(leave));
  document.getElementById("move-phone").addEventListener("click", () => busy(movePhone));
  document.getElementById("notation").addEventListener("toggle", showNotation);
  document.getElementById("new-code").addEventListener("click", () => busy(newCode));
  wireHistory();
  if (table.link) await claimSeat(table.link);
  await settle();
}

takeTokenFromUrl();
table.link = takeSeatLinkFromUrl();
if (document.body.dataset.page === "index") showIndex();
else if (document.body.dataset.page === "game") showGame();
