// The checking of a game's fair record (darkmoon-fair/2, docs/fair.md), shared by the verify
// page and the seat page: one code, so a phone and the verify page never judge a record
// apart. A classic script (no modules): the Pi inlines it into the verify page, whose saved
// copy then works from file:// with no Pi and no internet. It defines globalThis.DarkMoonFair.
//
// It checks everything `darkmoon-companion verify` checks except the rules replay: from the
// record alone it cannot tell that a die was rolled from the right dice or a card drawn from
// the right pile, only that each outcome is what the procedure gives for what the record says
// it was drawn from. Every page that shows its result says so.
//
// SHA-256 is our own: a phone on the Pi's plain-http address has no SubtleCrypto.
"use strict";

(() => {
  const FORMAT = "darkmoon-fair/2";
  const OLD_FORMAT = "darkmoon-fair/1";
  const PHONE = "phone";
  const FILLER = "filler";
  const bytesOf = (text) => Uint8Array.from(text, (c) => c.charCodeAt(0));  // ASCII only
  const LABEL = bytesOf(FORMAT);
  const FILLER_LABEL = bytesOf(`${FORMAT} filler`);

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
  const sha256Hex = (bytes) => toHex(sha256(bytes));

  // A whole number as 8 bytes, big-endian (a game's number, a log position, a counter).
  function uint64(n) {
    const out = new Uint8Array(8);
    const view = new DataView(out.buffer);
    view.setUint32(0, Math.floor(n / 0x100000000));
    view.setUint32(4, n >>> 0);
    return out;
  }

  // 32 bytes as a record holds them: exactly 64 lowercase hex digits, and nothing else (a
  // string: test() would read [x] as x), as the command reads them.
  const hex32 = (value) => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
  const whole = (value) => Number.isSafeInteger(value) && value >= 0;
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

  // What people read of 32 bytes and type back: the first 10 bytes as a number, modulo
  // 31^16, written as 16 symbols with no look-alikes (no 0/O, no 1/I/L), most significant
  // first, in groups of four (companion/chance/fair.py's code). 79 bits.
  const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
  const SYMBOLS = 16;
  const grouped = (symbols) => symbols.replace(/(.{4})(?=.)/g, "$1 ");
  function code(hex) {
    const head = String(hex).slice(0, 20);
    if (!/^[0-9a-fA-F]{20}$/.test(head)) return head;  // no hash: shown as it is
    const base = BigInt(ALPHABET.length);
    let n = BigInt(`0x${head}`) % base ** BigInt(SYMBOLS);
    let symbols = "";
    for (let i = 0; i < SYMBOLS; i++) {
      symbols = ALPHABET[Number(n % base)] + symbols;
      n /= base;
    }
    return grouped(symbols);
  }

  const commitmentOf = (box, game, secret) =>
    sha256Hex(concat(LABEL, fromHex(box), uint64(game), fromHex(secret)));
  const pledgeOf = (commitmentHex, valueHex) =>
    sha256Hex(concat(fromHex(commitmentHex), fromHex(valueHex)));
  const fillerOf = (secret, seat) =>
    toHex(hmac(hmacKey(fromHex(secret)), concat(FILLER_LABEL, uint64(seat))));

  // The words of one event's stream: HMAC(key, box || game || position || counter), eight
  // big-endian 32-bit words a block.
  function stream(pads, box, game, position) {
    const prefix = concat(box, uint64(game), uint64(position));
    let counter = 0;
    let words = [];
    const word = () => {
      if (!words.length) {
        const view = new DataView(hmac(pads, concat(prefix, uint64(counter++))).buffer);
        words = Array.from({ length: 8 }, (_, i) => view.getUint32(4 * i));
      }
      return words.shift();
    };
    const below = (n) => {
      const limit = 0x100000000 - (0x100000000 % n);  // rejection sampling: no face favoured
      for (;;) {
        const w = word();
        if (w < limit) return w % n;
      }
    };
    return {
      word,
      pick: (items) => items[below(items.length)],
      shuffle: (items) => {  // Fisher-Yates, from the last index down
        const x = items.slice();
        for (let i = x.length - 1; i > 0; i--) {
          const j = below(i + 1);
          [x[i], x[j]] = [x[j], x[i]];
        }
        return x;
      },
    };
  }

  const keyOf = (secret, values) => hmacKey(concat(fromHex(secret), ...values.map(fromHex)));

  // The first `count` words of the stream of the event at `position` (for tests and docs).
  function words(secret, values, box, game, position, count) {
    const s = stream(keyOf(secret, values), fromHex(box), game, position);
    return Array.from({ length: count }, () => s.word());
  }

  // A commitment as someone typed it, spaces and case ignored (as `verify --commitment`):
  // its code as the kiosk shows it, in code()'s form, or the whole 64 hex digits in lower
  // case. null: neither.
  function enteredCode(text) {
    const whole = String(text).replace(/\s+/g, "").toLowerCase();
    if (hex32(whole)) return whole;
    const symbols = whole.toUpperCase();
    const isCode = symbols.length === SYMBOLS && [...symbols].every((c) => ALPHABET.includes(c));
    return isCode ? grouped(symbols) : null;
  }
  // What an entered commitment reads as, for people: its code.
  const enteredAsCode = (entered) => (hex32(entered) ? code(entered) : entered);

  // A problem is {key, ...values}: its sentence is phone.verify.problem.<key> (say() below).
  class Problem extends Error {
    constructor(key, values = {}) {
      super(key);
      this.problem = { key, ...values };
    }
  }
  const fail = (key, values) => { throw new Problem(key, values); };
  const want = (ok, field, kind) => { if (!ok) fail("field", { field, want: kind }); };

  function players(first) {
    if (first.type === "start") {
      want(isObject(first.setup), "events[0].setup", "object");
      want(Array.isArray(first.setup.names), "events[0].setup.names", "list");
      return first.setup.names.length;
    }
    want(isObject(first.position), "events[0].position", "object");
    want(Array.isArray(first.position.seats), "events[0].position.seats", "list");
    return first.position.seats.length;
  }

  // A record's text read as the command reads it. JSON.parse alone reads 1.0 as 1, where
  // the command's Python sees a float that is no game's number nor a seat: where the browser
  // tells (JSON.parse's source text), a number written with a point or an exponent is noted,
  // and the checks take it for no whole number. Throws SyntaxError (not JSON) or RangeError
  // (nested too deep to read).
  const written = new WeakMap();  // object -> its keys whose number was not written whole
  function parse(text) {
    return JSON.parse(text, function keep(key, value, context) {
      if (typeof value === "number" && context && typeof context.source === "string"
          && !/^-?[0-9]+$/.test(context.source)) {
        if (!written.has(this)) written.set(this, new Set());
        written.get(this).add(key);
      }
      return value;
    });
  }
  const wholeAt = (holder, key) => whole(holder[key]) && !(written.get(holder)?.has(key));

  // Every field the checks below read, with its type: one problem naming the first bad one.
  function schema(rec) {
    want(isObject(rec), "record", "object");
    if (rec.format === OLD_FORMAT) fail("old_format");
    if (rec.format !== FORMAT) fail("format");
    for (const field of ["box", "commitment", "secret"]) want(hex32(rec[field]), field, "hex");
    want(wholeAt(rec, "game") && rec.game >= 1, "game", "number");
    want(Array.isArray(rec.contributions), "contributions", "list");
    rec.contributions.forEach((c, i) => {
      const at = `contributions[${i}]`;
      want(isObject(c), at, "object");
      want(wholeAt(c, "seat"), `${at}.seat`, "number");
      want(c.from === PHONE || c.from === FILLER, `${at}.from`, "source");
      want(c.pledge === null || hex32(c.pledge), `${at}.pledge`, "hex_or_null");
      want(hex32(c.value), `${at}.value`, "hex");
    });
    want(Array.isArray(rec.receipt), "receipt", "list");
    rec.receipt.forEach((named, i) => want(named === null || hex32(named), `receipt[${i}]`,
                                           "hex_or_null"));
    want(typeof rec.box_alone === "boolean", "box_alone", "boolean");
    want(Array.isArray(rec.events), "events", "list");
    want(Array.isArray(rec.draws), "draws", "list");
    rec.events.forEach((event, e) => {
      want(isObject(event), `events[${e}]`, "object");
      want(Array.isArray(event.chance), `events[${e}].chance`, "list");
      want(Array.isArray(event.facts), `events[${e}].facts`, "list");
    });
    rec.draws.forEach((draws, e) => {
      want(Array.isArray(draws), `draws[${e}]`, "list");
      draws.forEach((draw, m) => {
        const at = `draws[${e}][${m}]`;
        // exactly what the rules' draws hold: the command compares them whole
        want(isObject(draw) && Object.keys(draw).sort().join() === "from,op", at, "draw");
        want(draw.op === "pick" || draw.op === "shuffle", `${at}.op`, "op");
        want(Array.isArray(draw.from) && (draw.op === "shuffle" || draw.from.length > 0),
             `${at}.from`, "list");
      });
    });
  }

  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  // The checks, in the command's order; throws a Problem at the first one that fails.
  function check(rec, options, verdict) {
    let entered = null;
    if (options.commitment !== undefined && options.commitment !== null
        && String(options.commitment).trim() !== "") {
      entered = enteredCode(options.commitment);
      if (entered === null) fail("entered_code");
    }
    schema(rec);
    if (commitmentOf(rec.box, rec.game, rec.secret) !== rec.commitment) fail("commitment");
    if (entered !== null && entered !== rec.commitment && entered !== code(rec.commitment)) {
      fail("not_entered", { entered: enteredAsCode(entered), code: code(rec.commitment) });
    }
    const events = rec.events;
    if (!events.length) fail("no_events");
    const n = players(events[0]);
    const seats = rec.contributions.map((c) => c.seat);
    if (seats.length !== n || seats.some((s, i) => s !== i)) {
      fail("seats", { players: n, seats: seats.join(", ") });
    }
    for (const c of rec.contributions) {
      if (c.from === PHONE) {
        if (c.pledge === null || pledgeOf(rec.commitment, c.value) !== c.pledge) {
          fail("pledge", { seat: c.seat + 1 });
        }
        verdict.phones += 1;
      } else {
        if (fillerOf(rec.secret, c.seat) !== c.value) fail("filler", { seat: c.seat + 1 });
        if (c.pledge !== null) verdict.unrevealed.push(c.seat);
        verdict.fillers += 1;
      }
    }
    const unlike = receiptUnlike(rec.receipt, rec.contributions);
    if (unlike) fail(unlike.key, unlike);
    verdict.box_alone = rec.receipt.every((named) => named === null);
    if (rec.box_alone !== verdict.box_alone) fail("box_alone_mark");
    events.forEach((event, e) => {
      if (event.state_id !== e) fail("state_id", { event: e, said: JSON.stringify(event.state_id) });
    });
    if (rec.draws.length !== events.length) {
      fail("draws", { events: events.length, draws: rec.draws.length });
    }
    const pads = keyOf(rec.secret, rec.contributions.map((c) => c.value));
    const box = fromHex(rec.box);
    events.forEach((event, e) => {
      const s = stream(pads, box, rec.game, e);
      const draws = rec.draws[e];
      if (draws.length !== event.chance.length) {
        fail("count", { event: e, outcomes: event.chance.length, draws: draws.length });
      }
      draws.forEach((draw, m) => {
        const derived = draw.op === "shuffle" ? s.shuffle(draw.from) : s.pick(draw.from);
        if (!same(derived, event.chance[m])) {
          fail("outcome", { event: e, outcome: m, recorded: JSON.stringify(event.chance[m]),
                            derived: JSON.stringify(derived) });
        }
        verdict.outcomes += 1;
      });
    });
    verdict.events = events.length;
    const last = events[events.length - 1];
    verdict.over = last.facts.some((fact) => isObject(fact) && fact.k === "game_over");
  }

  // Where the contributions a deal used are not exactly the receipt's pledges (the one every
  // phone was shown before the deal): {key, ...values} of the first seat that differs, or
  // null. Fewer: a phone's bytes taken and then left out, to pick among other deals.
  function receiptUnlike(receipt, contributions) {
    if (receipt.length !== contributions.length) {
      return { key: "receipt_seats", named: receipt.length, seats: contributions.length };
    }
    for (let seat = 0; seat < receipt.length; seat++) {
      const c = contributions[seat];
      const used = c.from === PHONE ? c.pledge : null;
      if (receipt[seat] === used) continue;
      const key = used === null ? "left_out" : receipt[seat] === null ? "extra" : "receipt_pledge";
      return { key, seat: seat + 1 };
    }
    return null;
  }

  // {problems, over, events, outcomes, phones, fillers, unrevealed, box_alone}: as the command's
  // Verdict, from the chance checks alone. options.commitment: the commitment someone saw
  // before the deal (a code of 16+ hex digits, or the whole), which the record's must begin
  // with.
  function checkRecord(rec, options = {}) {
    const verdict = { problems: [], over: false, events: 0, outcomes: 0, phones: 0,
                      fillers: 0, unrevealed: [], box_alone: false };
    try {
      check(rec, options || {}, verdict);
    } catch (error) {
      let problem = { key: "damaged", why: String(error && error.message) };
      if (error instanceof Problem) problem = error.problem;
      else if (error instanceof RangeError) problem = { key: "too_deep" };
      return { problems: [problem], over: false, events: 0, outcomes: 0, phones: 0,
               fillers: 0, unrevealed: [], box_alone: false };
    }
    return verdict;
  }

  // A problem's sentence, given the page's t(key, values).
  function say(problem, t) {
    const values = { ...problem };
    if (problem.key === "field") values.want = t(`phone.verify.want.${problem.want}`);
    return t(`phone.verify.problem.${problem.key}`, values);
  }

  globalThis.DarkMoonFair = Object.freeze({
    FORMAT, parse, checkRecord, say, pledgeOf, commitmentOf, fillerOf, code, enteredCode,
    enteredAsCode, words, sha256, sha256Hex, fromHex, toHex, hex32,
  });
})();
