// The verify page: checks a game's fair record with fair-check.js and nothing else. No
// modules, no network once loaded: the Pi serves this page with both scripts and its words
// inlined, so a saved copy works from file:// with no Pi and no internet.
//
// It says exactly what it checked, never more: the chance (secret, pledges, fillers, every
// outcome from the procedure), not the rules, which only `darkmoon-companion verify` replays.
// Where SubtleCrypto exists it is asked too, as a second opinion on the commitment.
"use strict";

(() => {
  const fair = globalThis.DarkMoonFair;

  const TEXT = (() => {
    const node = document.getElementById("verify-text");
    return node ? JSON.parse(node.textContent) : {};
  })();

  function t(key, values = {}) {
    const sentence = TEXT[key] || key;
    return sentence.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
  }
  const v = (key, values) => t(`phone.verify.${key}`, values);

  function show(kind, lines) {
    const out = document.getElementById("result");
    out.className = kind;
    out.dataset.result = kind;
    out.replaceChildren(...lines.map(([line, id]) => {
      const p = document.createElement("p");
      if (id) p.id = id;
      p.textContent = line;
      return p;
    }));
  }

  async function secondOpinion(rec) {
    // SubtleCrypto's SHA-256 of the commitment's bytes, where the page is a secure context
    // (file://, localhost): it must agree with ours.
    if (!(globalThis.crypto && crypto.subtle)) return null;
    try {
      const label = new TextEncoder().encode(fair.FORMAT);
      const game = new Uint8Array(8);
      new DataView(game.buffer).setUint32(0, Math.floor(rec.game / 0x100000000));
      new DataView(game.buffer).setUint32(4, rec.game >>> 0);
      const parts = [label, fair.fromHex(rec.box), game, fair.fromHex(rec.secret)];
      const message = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      parts.reduce((at, p) => { message.set(p, at); return at + p.length; }, 0);
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", message));
      return fair.toHex(digest) === rec.commitment;
    } catch (error) {
      return null;
    }
  }

  let lastText = null;
  let checks = 0;  // only the latest check shows: a record checked twice never shows stale

  async function check(text) {
    lastText = text;
    const mine = ++checks;
    const shown = (kind, lines) => { if (mine === checks) show(kind, lines); };
    let rec;
    try {
      rec = fair.parse(text);
    } catch (error) {
      shown("failed", [[v("failed")], [error instanceof RangeError ? v("problem.too_deep")
                                                                  : v("not_json"), "problem"]]);
      return;
    }
    const entered = document.getElementById("commitment").value;
    const verdict = fair.checkRecord(rec, { commitment: entered });
    if (verdict.problems.length) {
      shown("failed", [[v("failed")], [fair.say(verdict.problems[0], t), "problem"]]);
      return;
    }
    const agrees = await secondOpinion(rec);
    if (agrees === false) {
      shown("failed", [[v("failed")], [v("problem.subtle"), "problem"]]);
      return;
    }
    const ended = verdict.over ? v("over", { game: rec.game })
      : v("unfinished", { game: rec.game, event: verdict.events - 1 });
    // No phone's bytes went in: whatever else adds up, nothing shows the deal was not chosen.
    const lines = verdict.box_alone
      ? [[v("alone", { game: rec.game }), "headline"], [ended, "ended"]]
      : [[ended, "headline"]];
    lines.push(
      [v("chance", { code: fair.code(rec.commitment), phones: verdict.phones,
                     fillers: verdict.fillers, outcomes: verdict.outcomes,
                     events: verdict.events }), "chance"],
      [v("no_replay"), "no-replay"],
      [v("commitment", { commitment: rec.commitment })]);
    if (verdict.unrevealed.length) {
      lines.push([v("unrevealed", { seats: verdict.unrevealed.map((s) => s + 1).join(", ") })]);
    }
    if (fair.enteredCode(entered)) {
      lines.push([v("entered", { entered: fair.enteredAsCode(fair.enteredCode(entered)) }),
                  "entered"]);
    }
    if (agrees) lines.push([v("subtle")]);
    shown(verdict.box_alone ? "alone" : verdict.over ? "checked" : "unfinished", lines);
  }

  function wire() {
    const file = document.getElementById("file");
    file.addEventListener("change", async () => {
      if (file.files.length) check(await file.files[0].text());
    });
    const pasted = document.getElementById("pasted");
    document.getElementById("check").addEventListener("click", () => check(pasted.value));
    document.getElementById("commitment").addEventListener("change", () => {
      if (lastText !== null) check(lastText);
    });
    document.body.addEventListener("dragover", (e) => e.preventDefault());
    document.body.addEventListener("drop", async (e) => {
      e.preventDefault();
      if (e.dataTransfer.files.length) check(await e.dataTransfer.files[0].text());
    });
    for (const node of document.querySelectorAll("[data-t]")) {
      if (TEXT[node.dataset.t]) node.textContent = TEXT[node.dataset.t];
    }
    if (location.protocol.startsWith("http")) {  // served by the Pi: its game's record
      const game = new URLSearchParams(location.search).get("game");
      const query = game && /^[0-9]+$/.test(game) ? `?game=${game}` : "";
      fetch(`/api/fair/record${query}`).then((r) => (r.ok ? r.text() : null))
        .then((text) => {
          if (text) { pasted.value = text; check(text); }
        }, () => {});
    }
  }

  if (typeof document !== "undefined" && document.getElementById("result")) wire();
})();
