// The table's history: every event, newest first, a page at a time (GET .../history), who moved and whose phone
// entered it, what voided or replaced it. A seat undoes or amends its own events from it, the host any. Every
// correction, from here or from the forms, is first previewed by the server ("this voids #41 reveal 1w0-b2k2,
// entered by ana", the same judgement the correction gets) and asked once; the answer names old and new.
// Loaded before page.js, whose wiring and `refresh` call these.
"use strict";

const chronicle = { before: null, asking: null };
const HISTORY_PAGE = 30;

function historyPath(before) {
  const query = new URLSearchParams({ limit: String(HISTORY_PAGE) });
  if (before) query.set("before", String(before));
  return `/api/games/${encodeURIComponent(table.id)}/history?${query}`;
}

async function showHistory(older) {
  // the first page again after every event (while the list is open), or the next older page
  const box = document.getElementById("history");
  if (!box || (!box.open && !older)) return;
  const answer = await api("GET", historyPath(older ? chronicle.before : null), undefined, table.me.token);
  if (answer.status !== 200) return;
  const list = document.getElementById("history-list");
  const items = answer.body.entries.map(historyItem);
  if (older) list.append(...items);
  else list.replaceChildren(...items);
  chronicle.before = answer.body.before;
  document.getElementById("history-older").hidden = !answer.body.before;
  list.dataset.seq = String(answer.body.seq);
}

function enteredBy(entry) {
  if (entry.by) return entry.player === entry.by ? "" : `entered by ${entry.by}`;
  return entry.type === "game_started" ? "" : "entered by the host";
}

function historyItem(entry) {
  const undone = entry.undone_by !== null && entry.undone_by !== undefined;
  const text = entry.replacement.length ? `${entry.text} → ${entry.replacement.join("; ")}` : entry.text;
  const notes = [enteredBy(entry), undone ? `${entry.replaced ? "replaced" : "voided"} by #${entry.undone_by}` : ""]
    .filter(Boolean).join(" · ");
  const item = el("li", { "data-seq": entry.seq, class: undone ? "undone" : null },
    el("span", { class: "pos" }, `#${entry.seq}`), el("span", { class: "text" }, text),
    notes ? el("span", { class: "meta" }, notes) : null);
  if (entry.may_correct) {
    item.append(el("div", { class: "row" },
      el("button", { type: "button", class: "quiet", "data-undo": entry.seq, "aria-label": `Undo #${entry.seq}`,
        onclick: (event) => {
          // the question under the event tapped; the answer above the list (the list is drawn again after it)
          const tapped = event.currentTarget.closest("li");
          table.place = document.getElementById("history-intro");
          busy(() => previewCorrection("amend", { target: entry.seq, move: null }, tapped));
        } },
        "Undo"),
      el("button", { type: "button", class: "quiet", "data-amend": entry.seq, "aria-label": `Amend #${entry.seq}`,
        onclick: () => amendFromHistory(entry.seq) }, "Amend")));
  }
  return item;
}

function amendFromHistory(seq) {
  // the amend form, filled with the event's #: what replaces it and why are typed there, then previewed
  const corrections = document.getElementById("corrections");
  corrections.open = true;
  document.getElementById("amend-seq").value = String(seq);
  document.getElementById("amend-move").focus();
}

function labelUndo() {
  const button = document.getElementById("undo-button");
  if (button) button.textContent = table.me && table.me.kind === "host" ? "Undo the last move" : "Undo my last move";
}

async function previewCorrection(path, body, row) {
  // asks the server what the correction would do (recording nothing), then asks the player once
  const reason = body.reason || "preview";
  const asked = { ...body, reason, preview: true, expected_seq: table.seq };
  const answer = await api("POST", `/api/games/${encodeURIComponent(table.id)}/${path}`, asked, table.me.token);
  if (answer.status === 0) {
    say("bad", ["Offline: what this would do cannot be shown until the connection returns."]);
    return;
  }
  if (answer.status !== 200) {
    explain(answer, path === "undo" ? "the undo" : "the correction");
    markAnswer(answeredAt(answer, asked.expected_seq));
    if (answer.status === 409) await refresh();
    return;
  }
  askOnce(path, { ...body, expected_seq: answer.body.seq }, answer.body, row);
}

function confirmBox() {
  // the one question on the page (it may have been drawn inside a history row that was drawn again since)
  return document.getElementById("confirm") || el("div", { id: "confirm", class: "confirm", hidden: true });
}

function askOnce(path, body, preview, row) {
  const box = confirmBox();
  const replaces = preview.corrections.some((c) => c.new.length);
  const reason = el("input", { id: "confirm-reason", name: "reason", required: true, autocomplete: "off",
    value: body.reason || "" });
  const form = el("form", { class: "confirm-form" },
    el("p", { class: "what" }, preview.preview.charAt(0).toUpperCase() + preview.preview.slice(1) + "."),
    el("p", { class: "meta" }, `Then: ${preview.expected}`),
    body.reason ? null : el("label", null, "Why (kept in the log) ", reason),
    el("div", { class: "row" },
      el("button", { type: "submit", id: "confirm-yes" }, replaces ? "Yes, replace it" : "Yes, void it"),
      el("button", { type: "button", class: "quiet", id: "confirm-no", onclick: closeAsk }, "Cancel")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const why = body.reason || reason.value.trim();
    if (!why) return;
    closeAsk();
    busy(() => deliver(path, { ...body, reason: why }, path === "undo" ? "the undo" : "the correction",
      (report) => announce(report, "Done.")));
  });
  box.replaceChildren(form);
  box.hidden = false;
  if (row && row.isConnected) row.append(box);  // under the event tapped in the history
  else if (table.place) table.place.after(box);
  chronicle.asking = preview.seq;
  (body.reason ? form.querySelector("#confirm-yes") : reason).focus();
}

function closeAsk() {
  const box = confirmBox();
  box.hidden = true;
  box.replaceChildren();
  chronicle.asking = null;
}

function historyMoved(seq) {
  // an event arrived: a question asked about an older table is void (its answer would be a 409 anyway)
  if (chronicle.asking !== null && seq !== chronicle.asking) closeAsk();
  labelUndo();
  showHistory(false);
}

function wireHistory() {
  document.getElementById("history").addEventListener("toggle", () => showHistory(false));
  document.getElementById("history-older").addEventListener("click", () => showHistory(true));
}
