// The phone's side of the seal on its traffic with the Pi (companion/web/sealing.py is the
// Pi's, docs/http-api.md "Sealed traffic" the protocol): a player who knows the Wi-Fi password
// and records every packet reads no status, die, ballot, card, code or phone in them.
//
// The code (a seat's, the host's, the table's) is in the page's address after "#", which a
// browser never sends: it is the key. The page says hello with a fresh X25519 key, checks that
// the Pi's answer proves it knows the code too (the hello itself proves the phone does, for one
// of the Pi's fresh values, so a recorded hello is worth nothing), and from then on seals every request, answer
// and stream message with ChaCha20-Poly1305 under a rising counter, padded to whole 1024-byte
// blocks. No crypto.subtle: a page on the Pi's plain-HTTP address is no secure context on a
// phone, so the vendored noble code (vendor/noble.js) does the work.
import { chacha20poly1305, hkdf, sha256, x25519 } from "./vendor/noble.js";

const BLOCK = 1024;
const SID = 16;
const KIND_REQUEST = 0x01;
const KIND_RESPONSE = 0x02;
const KIND_TICKET = 0x03;
const KIND_STREAM = 0x04;
const KIND_PROOF = 0x05;
const PHONE_KEY = "dm_phone_key";
const TIMEOUT_MS = 20000;   // a request the Pi never answers (a phone asleep) frees the queue
// The highest counter a session takes (sessions.py COUNTER_TOP): a phone that reaches it says
// hello again and goes on under a new session.
export const COUNTER_TOP = 2 ** 32 - 1;
const HELLO_WAITS = 3;      // told to wait (too many hellos from here): so many tries at most
const REOPEN_MS = 2000;     // a broken stream opens again after this (the Pi's retry: 2000)

// What the seal costs this phone, in ms, for bench/bench_phone_seal.py: the hello's own work
// (keys, proof; not the network), each answer's and each stream message's opening (and the
// sealed message's bytes). The last few hundred only.
export const timings = { hello: [], answer: [], message: [], bytes: [] };
function took(list, ms) {
  list.push(ms);
  if (list.length > 500) list.shift();
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// A refusal: {code, message} from the Pi (plain or inside the seal), or the phone's own
// ("offline", "bad_proof", "bad_seal"), with the HTTP status the op had (0: none).
export class Refused extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

// --- bytes ---

export function b64url(bytes) {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function unb64url(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

// A stream message's data line: base64 with its standard alphabet (cheaper for the Pi to
// write, and atob reads it as it is).
function fromBase64(text) {
  const raw = atob(text);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) { out.set(part, at); at += part.length; }
  return out;
}

function counterBytes(counter) {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setUint32(0, Math.floor(counter / 2 ** 32));
  view.setUint32(4, counter >>> 0);
  return out;
}

// kind (1) || index (3, big-endian) || counter (8, big-endian)
export function nonce(kind, counter, index = 0) {
  return concat(Uint8Array.of(kind, (index >>> 16) & 255, (index >>> 8) & 255, index & 255),
                counterBytes(counter));
}

function shortHash(label, text) {
  return b64url(sha256(concat(encoder.encode(label), encoder.encode(text))).slice(0, 16));
}

export const codeId = (token) => shortHash("darkmoon code id\0", token);
export const phoneId = (phone) => shortHash("darkmoon phone\0", phone);

// JSON, then spaces up to a whole number of blocks: its length says only how many it took.
export function padded(obj) {
  const text = encoder.encode(JSON.stringify(obj));
  const size = Math.max(BLOCK, Math.ceil(text.length / BLOCK) * BLOCK);
  const out = new Uint8Array(size).fill(0x20);
  out.set(text);
  return out;
}

const readJson = (bytes) => JSON.parse(decoder.decode(bytes));

function randomBytes(n) {
  const out = new Uint8Array(n);
  crypto.getRandomValues(out);
  return out;
}

// This phone's secret: made once, kept in localStorage; a reload is the same phone. A browser
// that keeps nothing (private browsing refusing storage) is a new phone at every page.
let memoryPhone = null;
export function phoneSecret() {
  try {
    const kept = localStorage.getItem(PHONE_KEY);
    if (kept && /^[A-Za-z0-9_-]{22}$/.test(kept)) return kept;
    const made = b64url(randomBytes(16));
    localStorage.setItem(PHONE_KEY, made);
    return made;
  } catch (refused) {
    memoryPhone = memoryPhone || b64url(randomBytes(16));
    return memoryPhone;
  }
}

async function plainRefusal(response) {
  let error = {};
  try { error = (await response.json()).error || {}; } catch (nothing) { /* not JSON */ }
  return new Refused(error.code || `http_${response.status}`, error.message || response.statusText,
                     response.status);
}

// --- one code ---

// `token`: the code from the page's address. `lang()`: the language the page is read in now;
// `say(key)`: its words (the phone's own refusals are told in them).
export function openCode(token, { lang = () => null, say = (key) => key } = {}) {
  const id = codeId(token);
  const phone = phoneSecret();
  let session = null;   // {sid, up, down, requests, tickets}
  let greeting = null;  // the hello in flight, shared by whoever needs a session meanwhile
  let queue = Promise.resolve();

  const offline = () => new Refused("offline", say("phone.error.offline"), 0);

  // One of the Pi's fresh values, which a hello must carry: asked for as soon as the code is
  // opened (while the page loads its words), then again for each later hello.
  const askFresh = () => fetch("/api/hello", { cache: "no-store" })
    .then((response) => (response.ok ? response.json() : {}))
    .then((answer) => answer.fresh, () => undefined);
  let early = askFresh();

  async function hello() {
    let response, secret, pub, keyed, began;
    for (let tries = 0; ; tries += 1) {
      const kept = early;
      early = null;
      const fresh = await (kept || askFresh());
      if (typeof fresh !== "string") throw offline();
      began = performance.now();
      secret = randomBytes(32);
      pub = x25519.getPublicKey(secret);
      // The proof that this phone holds the code, for this key and this fresh value only:
      // HKDF's first step is HMAC-SHA256 keyed by the code.
      let proof;
      try {
        proof = hkdf(sha256, concat(encoder.encode(id), pub, unb64url(fresh)),
                     encoder.encode(token), encoder.encode("darkmoon hello v1\0"), 16);
      } catch (error) {
        throw offline();
      }
      keyed = performance.now() - began;
      try {
        response = await fetch("/api/hello", {
          method: "POST", cache: "no-store", headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ code: id, pub: b64url(pub), fresh, proof: b64url(proof) }) });
      } catch (error) {
        throw offline();
      }
      if (response.ok) break;
      const refusal = await plainRefusal(response);
      const wait = Number(response.headers.get("Retry-After"));
      if (refusal.code === "too_many_hellos" && tries < HELLO_WAITS && wait > 0) {
        await new Promise((done) => setTimeout(done, wait * 1000));
      } else if (refusal.code === "unknown_token" && kept && tries === 0) {
        // The value asked for when the page opened may have gone stale (a phone that slept
        // on a half-loaded page, a Pi restarted since): once more with a new one.
      } else {
        throw refusal;
      }
    }
    let answer, sid, piPub, proof;
    try {
      answer = await response.json();
      sid = unb64url(answer.session);
      piPub = unb64url(answer.pub);
      proof = unb64url(answer.proof);
    } catch (error) {
      throw new Refused("bad_proof", say("phone.error.bad_proof"), 0);
    }
    // Nothing is sent until the Pi shows it holds the code: its proof is the tag of nothing
    // under keys only the code's holders can make.
    const checking = performance.now();
    try {
      if (sid.length !== SID || piPub.length !== 32 || proof.length !== 16) {
        throw new Error("not a hello's answer");
      }
      const shared = x25519.getSharedSecret(secret, piPub);
      if (shared.every((byte) => byte === 0)) throw new Error("small order");
      const okm = hkdf(sha256, shared, encoder.encode(token),
                       concat(encoder.encode("darkmoon seal v1\0"), encoder.encode(id), pub, piPub),
                       64);
      const up = okm.slice(0, 32);
      const down = okm.slice(32);
      const opened = chacha20poly1305(down, nonce(KIND_PROOF, 0), sid).decrypt(proof);
      if (opened.length !== 0) throw new Error("not empty");
      session = { sid, up, down, requests: 0, tickets: 0 };
      took(timings.hello, keyed + performance.now() - checking);
      return session;
    } catch (error) {
      throw new Refused("bad_proof", say("phone.error.bad_proof"), 0);
    }
  }

  // The session to use; `stale`: one the Pi forgot, so a new hello unless one was said since.
  function ready(stale = null) {
    if (session && session !== stale) return Promise.resolve(session);
    if (!greeting) greeting = hello().finally(() => { greeting = null; });
    return greeting;
  }

  function sealedAs(kind, s, counter, message) {
    const box = chacha20poly1305(s.up, nonce(kind, counter), s.sid).encrypt(padded(message));
    return concat(s.sid, counterBytes(counter), box);
  }

  async function post(s, op, body) {
    if (s.requests >= COUNTER_TOP) return { refused: new Refused("unknown_session", "", 401) };
    const counter = ++s.requests;
    const envelope = sealedAs(KIND_REQUEST, s, counter, { op, phone, lang: lang(), body });
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), TIMEOUT_MS);
    let response, raw;
    try {
      response = await fetch("/api/sealed", {
        method: "POST", cache: "no-store", signal: abort.signal,
        headers: { "Content-Type": "application/octet-stream" }, body: envelope });
      if (response.status !== 200) return { refused: await plainRefusal(response) };
      raw = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw offline();
    } finally {
      clearTimeout(timer);
    }
    let answer;
    const opening = performance.now();
    try {
      const box = chacha20poly1305(s.down, nonce(KIND_RESPONSE, counter), s.sid);
      answer = readJson(box.decrypt(raw));
      took(timings.answer, performance.now() - opening);
    } catch (error) {
      throw new Refused("bad_seal", say("phone.error.bad_seal"), 0);
    }
    const data = answer.body;
    if (answer.status >= 400 || (data && data.error)) {
      const e = (data && data.error) || {};
      throw new Refused(e.code || `http_${answer.status}`, e.message || "", answer.status);
    }
    return { data };
  }

  async function send(op, body) {
    let s = await ready();
    let result = await post(s, op, body);
    if (result.refused && result.refused.code === "unknown_session") {
      // The Pi restarted, or retired this code's keys: hello again (the code is still in the
      // address) and send once more under the new session.
      s = await ready(s);
      result = await post(s, op, body);
    }
    if (result.refused) throw result.refused;
    return result.data;
  }

  // One sealed request at a time, so their counters reach the Pi in order.
  function call(op, body = {}) {
    const next = queue.then(() => send(op, body));
    queue = next.catch(() => {});
    return next;
  }

  // The sealed stream: `onMessage({view, notices})` for each message, `onRefused(error)` for a
  // last `refused` or a hello refused (nothing more comes: the page stops, as for a refusal;
  // reopen() tries again). Any failure (a message that does not open as the next one, a
  // socket closed, a ticket refused) closes the stream, and a new one opens under a new
  // ticket after a short delay unless close() was called; `onBroken(error?)` is told when
  // the failed stream had not opened a single message (the page may ask why).
  function live({ onMessage, onRefused = () => {}, onBroken = () => {} }) {
    let source = null;   // the stream whose messages count
    let leaving = null;  // the one it replaces (a new language, a wake): kept until the new
                         // one has spoken, so no notice falls between the two
    let retry = null;
    let closed = false;
    let stale = null;    // a session the last stream may have been refused for
    let told = [];       // notices said lately: [JSON, stream, when], one stream's only once

    function stop() {
      clearTimeout(retry);
      for (const one of [source, leaving]) if (one) one.close();
      source = leaving = null;
    }

    // `opened`: the stream had given messages (a socket dropped, a message that would not
    // open): its successor brings the whole view again. One that never opened is told.
    function broke(error, opened = false) {
      stop();
      if (closed) return;
      if (!opened) onBroken(error);
      retry = setTimeout(open, REOPEN_MS);
    }

    function refused(error) {
      stop();
      if (!closed) onRefused(error);
    }

    // A notice heard by both streams while they overlap is said once.
    function fresh(notices, from) {
      const now = performance.now();
      told = told.filter(([, , when]) => now - when < 5000);
      return (notices || []).filter((notice) => {
        const text = JSON.stringify(notice);
        if (told.some(([seen, by]) => seen === text && by !== from)) return false;
        told.push([text, from, now]);
        return true;
      });
    }

    async function open() {
      clearTimeout(retry);
      if (closed) { stop(); return; }
      let s;
      try {
        s = await ready(stale);
      } catch (error) {
        // The Pi knows this code no more (a seat given away, a game replaced) or would not
        // prove it knows it: no stream will come, as after a refused one. Offline: later.
        // Told to wait even after waiting (a flood from this phone's address): later too.
        const later = error.code === "too_many_hellos";
        if ((error.status >= 400 && !later) || error.code === "bad_proof") refused(error);
        else broke(error);
        return;
      }
      if (closed) return;
      stale = null;
      if (s.tickets >= COUNTER_TOP) {  // this session has opened all the streams it may
        stale = s;
        open();
        return;
      }
      const n = ++s.tickets;
      const ticket = b64url(sealedAs(KIND_TICKET, s, n, { op: "events", phone, lang: lang() }));
      const mine = new EventSource(`/api/sealed/events?t=${ticket}`);
      if (leaving) leaving.close();
      leaving = source;
      source = mine;
      let index = 0;
      mine.addEventListener("m", (event) => {
        if (mine !== source && mine !== leaving) return;
        let message;
        const opening = performance.now();
        try {
          const box = fromBase64(event.data);
          message = readJson(chacha20poly1305(s.down, nonce(KIND_STREAM, n, index), s.sid)
            .decrypt(box));
          took(timings.message, performance.now() - opening);
          took(timings.bytes, box.length);
        } catch (error) {
          // Replayed, reordered or altered: this stream is not to be trusted any more.
          if (mine === leaving) { mine.close(); leaving = null; return; }
          broke(new Refused("bad_seal", say("phone.error.bad_seal"), 0), index > 0);
          return;
        }
        index += 1;
        if (mine === source && leaving) { leaving.close(); leaving = null; }
        if (message.refused) {
          const e = message.refused;
          refused(new Refused(e.code, e.message, 403));
          return;
        }
        onMessage({ ...message, notices: fresh(message.notices, mine) });
      });
      // An EventSource would reconnect with the same ticket, which the Pi refuses as
      // replayed: every failure closes it, and a new ticket opens the next one. A stream
      // that never opened a message may be refused for an unknown session: the next try
      // says hello first.
      mine.onerror = () => {
        if (mine === leaving) { mine.close(); leaving = null; return; }
        if (mine !== source) return;
        if (index === 0) stale = s;
        broke(null, index > 0);
      };
    }

    open();
    return {
      reopen: () => { closed = false; open(); },
      close: () => { closed = true; stop(); },
    };
  }

  return { token, id, phone, call, live, hello: () => ready(session) };
}
