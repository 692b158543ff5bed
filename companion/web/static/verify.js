// The verify page: checks a game's fair record with nothing but this file (docs/fair.md).
// No modules, no network: the Pi serves it with this script and its words inlined, so a
// saved copy works from file:// with no Pi and no internet. SHA-256 is our own (a phone on
// the Pi's plain-http address has no SubtleCrypto); where SubtleCrypto exists it is asked
// too, as a second opinion on the commitment.
"use strict";

const FORMAT = "darkmoon-fair/1";
// A secret or a contribution, and nothing else (a string: test() would read [x] as x)
const hex32 = (value) => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);

function sha256(bytes) {
  const total = Math.ceil((bytes.length + 9) / 64) * 64;
  const msg = new Uint8Array(total);
  msg.set(bytes);
  msg[bytes.length] = 0x80;
  const bits = bytes.length * 8;
  const view = new DataView(msg.buffer);
  view.setUint32(total - 8, Math.floor(bits / 0x100000000));
  view.setUint32(total - 4, bits >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g))
                  + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, hh].forEach((v, i) => { h[i] = (h[i] + v) >>> 0; });
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  h.forEach((v, i) => outView.setUint32(4 * i, v));
  return out;
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

// HMAC-SHA256 (RFC 2104) with the inner and outer pads prepared once per key.
function hmacKey(key) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256(key) : key);
  return { inner: block.map((b) => b ^ 0x36), outer: block.map((b) => b ^ 0x5c) };
}

function hmac(pads, message) {
  return sha256(concat(pads.outer, sha256(concat(pads.inner, message))));
}

function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) {
    throw new Error(`not hex: ${String(hex).slice(0, 20)}`);
  }
  return Uint8Array.from(hex.match(/../g) || [], (pair) => parseInt(pair, 16));
}

const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function uint64(n) {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, Math.floor(n / 0x100000000));
  view.setUint32(4, n >>> 0);
  return out;
}

// The words of one event's stream: HMAC(key, position || counter), eight words a block.
function stream(pads, position) {
  let counter = 0;
  let words = [];
  const word = () => {
    if (!words.length) {
      const view = new DataView(hmac(pads, concat(uint64(position), uint64(counter++))).buffer);
      words = Array.from({ length: 8 }, (_, i) => view.getUint32(4 * i));
    }
    return words.shift();
  };
  const below = (n) => {
    const limit = 0x100000000 - (0x100000000 % n);  // rejection sampling
    for (;;) {
      const w = word();
      if (w < limit) return w % n;
    }
  };
  return {
    pick: (items) => items[below(items.length)],
    shuffle: (items) => {
      const x = items.slice();
      for (let i = x.length - 1; i > 0; i--) {
        const j = below(i + 1);
        [x[i], x[j]] = [x[j], x[i]];
      }
      return x;
    },
  };
}

function players(first) {
  return first.type === "start" ? first.setup.names.length : first.position.seats.length;
}

// Every problem found in a record; none: every outcome is what the procedure gives.
function verifyRecord(rec) {
  const problems = [];
  const counts = { events: 0, outcomes: 0 };
  if (!rec || rec.format !== FORMAT) return { problems: ["format"], counts };
  // Exactly 64 lowercase hex digits, as `darkmoon-companion verify` reads them: the page and
  // the command judge every record alike.
  if (!hex32(rec.secret)) return { problems: ["secret"], counts };
  if (toHex(sha256(fromHex(rec.secret))) !== String(rec.commitment).toLowerCase()) {
    return { problems: ["commitment"], counts };
  }
  const events = rec.events;
  const seats = rec.contributions.map((c) => c.seat);
  const n = players(events[0]);
  if (seats.length !== n || seats.some((s, i) => s !== i)) {
    return { problems: ["contributions"], counts };
  }
  const odd = rec.contributions.find((c) => !hex32(c.value));
  if (odd) return { problems: ["contribution"], counts, values: { seat: odd.seat } };
  const key = concat(fromHex(rec.secret), ...rec.contributions.map((c) => fromHex(c.value)));
  const pads = hmacKey(key);
  if (!Array.isArray(rec.draws) || rec.draws.length !== events.length) {
    return { problems: ["draws"], counts };
  }
  events.forEach((event, position) => {
    if (problems.length) return;
    const s = stream(pads, position);
    const chance = event.chance || [];
    const draws = rec.draws[position];
    if (event.state_id !== position || draws.length !== chance.length) {
      problems.push(`event ${position}`);
      return;
    }
    draws.forEach((draw, m) => {
      const derived = draw.op === "shuffle" ? s.shuffle(draw.from) : s.pick(draw.from);
      if (!problems.length && JSON.stringify(derived) !== JSON.stringify(chance[m])) {
        problems.push(`event ${position}, outcome ${m}: ${JSON.stringify(chance[m])} ≠ `
                      + JSON.stringify(derived));
      }
      counts.outcomes += 1;
    });
    counts.events += 1;
  });
  return { problems, counts };
}

// --- the page ---

const TEXT = (() => {
  const node = document.getElementById("verify-text");
  return node ? JSON.parse(node.textContent) : {};
})();

function t(key, values = {}) {
  const sentence = TEXT[`phone.verify.${key}`] || key;
  return sentence.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

function show(kind, lines) {
  const out = document.getElementById("result");
  out.className = kind;
  out.dataset.result = kind;
  out.replaceChildren(...lines.map((line) => {
    const p = document.createElement("p");
    p.textContent = line;
    return p;
  }));
}

async function secondOpinion(rec) {
  // SubtleCrypto's SHA-256 of the secret, where the page is a secure context (file://,
  // localhost): it must agree with ours.
  if (!(globalThis.crypto && crypto.subtle)) return null;
  try {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", fromHex(rec.secret)));
    return toHex(digest) === toHex(sha256(fromHex(rec.secret)));
  } catch (error) {
    return null;
  }
}

async function check(text) {
  let rec;
  try {
    rec = JSON.parse(text);
  } catch (error) {
    show("failed", [t("not_json")]);
    return;
  }
  let result;
  try {
    result = verifyRecord(rec);
  } catch (error) {
    show("failed", [t("malformed", { why: error.message })]);
    return;
  }
  const { problems, counts, values } = result;
  if (problems.length) {
    const first = problems[0];
    show("failed", [t("failed"), t(`problem.${first}`) === `problem.${first}`
      ? t("problem.outcome", { where: first }) : t(`problem.${first}`, values)]);
    return;
  }
  const fingerprint = `${rec.commitment.slice(0, 4)} ${rec.commitment.slice(4, 8)}`.toUpperCase();
  const lines = [t("verified", { game: rec.game }),
                 t("commitment", { fingerprint, commitment: rec.commitment }),
                 t("counted", { events: counts.events, outcomes: counts.outcomes }),
                 t("contributions", {
                   phones: rec.contributions.filter((c) => c.from === "phone").length,
                   pi: rec.contributions.filter((c) => c.from !== "phone").length })];
  const agrees = await secondOpinion(rec);
  if (agrees === false) {
    show("failed", [t("failed"), t("problem.subtle")]);
    return;
  }
  if (agrees) lines.push(t("subtle"));
  show("verified", lines);
}

function wire() {
  const file = document.getElementById("file");
  file.addEventListener("change", async () => {
    if (file.files.length) check(await file.files[0].text());
  });
  const pasted = document.getElementById("pasted");
  document.getElementById("check").addEventListener("click", () => check(pasted.value));
  document.body.addEventListener("dragover", (e) => e.preventDefault());
  document.body.addEventListener("drop", async (e) => {
    e.preventDefault();
    if (e.dataTransfer.files.length) check(await e.dataTransfer.files[0].text());
  });
  for (const node of document.querySelectorAll("[data-t]")) {
    if (TEXT[node.dataset.t]) node.textContent = TEXT[node.dataset.t];
  }
  if (location.protocol.startsWith("http")) {  // served by the Pi: its game's record
    fetch("/api/fair/record").then((r) => (r.ok ? r.text() : null))
      .then((text) => {
        if (text) { pasted.value = text; check(text); }
      }, () => {});
  }
}

if (typeof document !== "undefined" && document.getElementById("result")) wire();
