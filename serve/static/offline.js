// Flaky Wi-Fi: the page says when the host cannot be reached; a tap made then is kept, with the expected_seq of the
// moment it was made, and sent when the connection returns: recorded if the table is still there, else answered
// with the 409 and the board redrawn. The live stream resumes after the last event it saw (page.js, Last-Event-ID).
// Loaded before page.js, whose `api`, `deliver` and stream call these.
"use strict";

const connection = { offline: false, kept: [], probing: null, sending: false };

function markOffline() {
  if (!connection.offline) {
    connection.offline = true;
    drawConnection();
  }
  probeUntilOnline();
}

function markOnline() {
  if (connection.offline) {
    connection.offline = false;
    drawConnection();
  }
  if (connection.kept.length) sendKept();
}

function drawConnection() {
  const box = document.getElementById("offline");
  const count = connection.kept.length;
  document.body.dataset.connection = connection.offline ? "offline" : "online";
  document.body.dataset.kept = String(count);
  if (!box) return;
  box.hidden = !connection.offline;
  const kept = count === 0 ? "A tap made now is kept and sent when it returns."
    : `${count === 1 ? "1 tap is" : `${count} taps are`} kept, to be sent when it returns.`;
  box.textContent = connection.offline ? `Offline: the host cannot be reached. ${kept}` : "";
}

function keepOffline(path, sent, what, onDone) {
  connection.kept.push({ path, sent, what, onDone });
  markOffline();
  drawConnection();
  say("bad", [`Offline: ${what} is kept, and sent when the connection returns. It is recorded only if the table is `
    + `still at #${sent.expected_seq} then; if it has moved on, nothing is recorded and the board is redrawn.`]);
}

async function sendKept() {
  // in the order they were made, each with the expected_seq it was made against
  if (connection.sending) return;
  connection.sending = true;
  try {
    while (connection.kept.length) {
      const next = connection.kept[0];
      const status = await deliver(next.path, next.sent, next.what, next.onDone, true);
      if (status === 0) return;  // still unreachable: it stays kept, the probe tries again
      connection.kept.shift();
      drawConnection();
    }
  } finally {
    connection.sending = false;
  }
}

function probeUntilOnline() {
  // the browser's own online event is not trusted alone (a phone may be on a network that does not reach the host)
  if (connection.probing) return;
  connection.probing = setInterval(async () => {
    if (!connection.offline) {
      clearInterval(connection.probing);
      connection.probing = null;
      return;
    }
    try {
      const answer = await fetch("/api/catalog", { cache: "no-store" });
      if (answer.ok) markOnline();
    } catch (_) {
      // still away
    }
  }, 2000);
}

window.addEventListener("offline", markOffline);
window.addEventListener("online", () => {
  if (connection.offline) fetch("/api/catalog", { cache: "no-store" }).then((answer) => { if (answer.ok) markOnline(); }, () => {});
});
