// The result box (#said): it belongs to the phone that acted, says exactly what the server recorded, and is cleared
// by the next event, so that no old "Recorded: ..." stays on a phone while the game goes on. Loaded before page.js,
// whose `say`, `post` and `refresh` call these.
"use strict";

function answeredAt(answer, expected) {
  // the position an answer leaves the log at: after what was recorded, where a stale write found it, else where the
  // page stood when it sent (nothing was appended)
  const body = answer.body || {};
  if (answer.status === 201 && Array.isArray(body.events) && body.events.length) {
    return Math.max(...body.events.map((event) => event.seq));
  }
  if ((answer.status === 201 || answer.status === 409) && typeof body.seq === "number") return body.seq;
  return expected;
}

function markAnswer(seq) {
  // the box speaks of the log up to `seq`: the next event after it clears the box
  const said = document.getElementById("said");
  if (said && typeof seq === "number" && Number.isFinite(seq)) said.dataset.seq = String(seq);
}

function clearStaleAnswer(seq) {
  // a later event than the one the box spoke of: the box is old news, on this phone as on every other
  const said = document.getElementById("said");
  if (!said || said.hidden || said.dataset.seq === undefined) return;
  if (seq > Number(said.dataset.seq)) {
    said.hidden = true;
    said.replaceChildren();
    delete said.dataset.seq;
  }
}

function echoLines(report, fallback) {
  // what was recorded, every event as the server words it for this caller (a line it may not read says only who did
  // what kind of thing), in order: a three-card reveal is three reveals, each once
  const events = report.events || [];
  const lines = [events.length ? `Recorded: ${events.map((e) => `#${e.seq} ${e.text}`).join("; ")}` : fallback];
  for (const consequence of report.consequences || []) lines.push(consequence);
  if (report.outcome) lines.push(`The game is over: ${report.outcome.reason} (${scoresOf(report.outcome)})`);
  return lines;
}
