// What every page shares: the word catalogue, JSON calls, the live stream with reconnects,
// and a tiny element builder. No framework: the Pi serves these files as they are.
// A code's own traffic (a seat's, the host's, the table's) is sealed (seal.js).
import { openCode, Refused } from "./seal.js";

export { Refused };

const LANG_KEY = "dm_lang";
let words = {};
export let lang = "en";

export function chosenLang() {
  const stored = localStorage.getItem(LANG_KEY);
  if (stored === "en" || stored === "es") return stored;
  return (navigator.language || "en").toLowerCase().startsWith("es") ? "es" : "en";
}

export async function loadLang(wanted) {
  const response = await fetch(`/lang/${wanted}.json`);
  words = response.ok ? await response.json() : {};
  lang = wanted;
  localStorage.setItem(LANG_KEY, wanted);
  document.documentElement.lang = wanted;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
}

// A missing key shows a readable form of the id rather than nothing, so a word that a
// catalogue lacks is visible instead of a blank button.
export function t(key, values = {}) {
  const template = words[key];
  if (template === undefined) return humanize(key.split(".").pop());
  return template.replace(/\{(\w+)\}/g, (_, name) => (name in values ? values[name] : `{${name}}`));
}

export function has(key) {
  return key in words;
}

export function humanize(id) {
  const s = String(id).replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// A game id (card, character, token...) in the reader's language: game.<kind>.<id>.
export function label(kind, id) {
  return has(`game.${kind}.${id}`) ? t(`game.${kind}.${id}`) : humanize(id);
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// JSON in, JSON out, for what stays public (the board, the choices, a fair record); a
// refusal ({"error": {code, message}}) becomes a Refused error.
export async function call(method, url, body) {
  let response;
  try {
    response = await fetch(url, {
      method, credentials: "same-origin", cache: "no-store",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new Refused("offline", t("phone.error.offline"), 0);
  }
  let data = null;
  try { data = await response.json(); } catch (error) { data = null; }
  if (!response.ok || (data && data.error)) {
    const e = (data && data.error) || {};
    throw new Refused(e.code || "http_" + response.status, e.message || response.statusText,
                      response.status);
  }
  return data;
}

export function withLang(url) {
  return url + (url.includes("?") ? "&" : "?") + "lang=" + lang;
}

// The code in this page's address, after "#": a browser never sends it (seal.js). A code
// typed from the kiosk comes in groups with dashes, maybe in small letters: it is the same
// code (companion/codes.py), so it is taken back to the form the Pi gave.
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const SEAT_SYMBOLS = 20;
export function tokenFromHash() {
  let text;
  try {
    text = decodeURIComponent(location.hash.replace(/^#/, ""));
  } catch (error) {
    text = location.hash.replace(/^#/, "");
  }
  const symbols = text.replace(/[\s-]+/g, "").toUpperCase();
  const typed = symbols.length === SEAT_SYMBOLS && [...symbols].every((c) => CODE_ALPHABET.includes(c));
  return typed ? symbols : text;
}

// This page's code, opened for sealed calls: `code.call(op, body)` gives what the op answers
// or throws a Refused, as call() does. Another code put in the address (a link to another
// seat, a code typed in) is another page: it loads afresh.
export function pageCode() {
  const token = tokenFromHash();
  addEventListener("hashchange", () => { if (tokenFromHash() !== token) location.reload(); });
  return codeFor(token);
}

export function codeFor(token) {
  return openCode(token, { lang: () => lang, say: t });
}

// The live view: of a code (`code`: its sealed stream and its `view` op), or of the board
// (`getUrl`, `eventsUrl`: public). iOS Safari drops sockets while the phone sleeps without
// any close event: on wake (visibilitychange, pageshow, online) the stream is opened again and
// the whole payload fetched, so nothing depends on a stale socket.
export function live(options) {
  return options.code ? liveCode(options) : liveBoard(options);
}

// A phone that wakes (its page shown again, back in the pocket's Wi-Fi) calls `wake`.
function whenAwake(wake) {
  document.addEventListener("visibilitychange", wake);
  window.addEventListener("pageshow", (event) => { if (event.persisted) wake(); });
  window.addEventListener("online", wake);
}

function liveCode({ code, onView, onNotice, onError }) {
  const heard = announcer(onView);
  let stream = null;
  let stopped = false;

  async function refresh() {
    try {
      heard(await code.call("view"));
    } catch (error) {
      if (!stopped) onError(error);
    }
  }

  function open() {
    if (stream) {
      stream.reopen();  // the new stream opens before the old one closes
      return;
    }
    stream = code.live({
      onMessage: (message) => {
        heard(message.view);
        for (const notice of message.notices || []) onNotice && onNotice(notice);
      },
      // The Pi ended a stream this phone may no longer read (its seat was re-bound): stop
      // here rather than reconnect into the same refusal; a wake-up tries again.
      onRefused: (error) => onError(error),
      // A stream that could not open (the Pi away, a ticket refused): ask for the payload to
      // learn why; seal.js opens a new stream a little later by itself, as it does, untold,
      // after a stream that dropped (the new one brings the whole payload).
      onBroken: () => refresh(),
    });
  }

  function wake() {
    if (stopped || document.visibilityState === "hidden") return;
    open();
    refresh();
  }

  whenAwake(wake);
  open();
  return {
    reopen: wake, refresh,
    stop: () => { stopped = true; if (stream) stream.close(); },
  };
}

function liveBoard({ getUrl, eventsUrl, onView, onNotice, onError }) {
  let source = null;
  let retry = null;
  const heard = announcer(onView);

  async function refresh() {
    try {
      heard(await call("GET", withLang(getUrl)));
    } catch (error) {
      onError(error);
    }
  }

  function open() {
    clearTimeout(retry);
    if (source) source.close();
    source = new EventSource(withLang(eventsUrl));
    source.addEventListener("view", (event) => heard(JSON.parse(event.data)));
    source.addEventListener("notice", (event) => onNotice && onNotice(JSON.parse(event.data)));
    source.onerror = () => {
      // A refused stream (too many from one address, the Pi restarted) is closed for good
      // by the browser: ask for the payload to learn why, and try again a little later.
      if (source.readyState === EventSource.CLOSED) {
        refresh();
        retry = setTimeout(open, 3000);
      }
    };
  }

  function wake() {
    if (document.visibilityState === "hidden") return;
    open();
    refresh();
  }

  whenAwake(wake);
  open();
  return { reopen: wake, refresh };
}

// Room notices every phone must see as they happen: a seat's phone put out by a re-bind, a
// bot's seat handed to a person, a new host code made at the Pi. Only those that arrive
// after the page opened are said (a phone that slept hears of them when it wakes);
// `room.notice_count` tells which are new.
const ANNOUNCED = new Set(["seat_rebound", "seat_handed_over", "host_replaced",
                           "game_revealed"]);

function announcer(onView) {
  let seen = null;
  return (data) => {
    const room = data && data.room;
    if (room && typeof room.notice_count === "number") {
      const fresh = seen === null ? 0 : Math.min(room.notice_count - seen, room.notices.length);
      for (const notice of fresh > 0 ? room.notices.slice(-fresh) : []) {
        if (!ANNOUNCED.has(notice.k)) continue;
        const seat = room.seats[notice.seat];
        toast(t(`phone.notice.${notice.k}`, {
          seat: notice.seat === undefined ? "" : notice.seat + 1, name: seat ? seat.name : "",
          game: notice.game === undefined ? "" : notice.game }),
        "announce");
      }
      seen = room.notice_count;
    }
    onView(data);
  };
}

// EN/ES toggle in the page header; `changed` re-renders and reopens streams.
export function langToggle(changed) {
  const box = el("div", { class: "lang-toggle", role: "group" });
  function draw() {
    box.replaceChildren(...["en", "es"].map((code) => el("button", {
      type: "button", class: code === lang ? "on" : "", "aria-pressed": String(code === lang),
      "data-lang": code,
      onclick: async () => {
        if (code === lang) return;
        await loadLang(code);
        draw();
        changed();
      },
    }, code.toUpperCase())));
  }
  draw();
  return box;
}

// A short message that goes away by itself: refusals and confirmations.
export function toast(message, kind = "info") {
  let box = document.getElementById("toasts");
  if (!box) {
    box = el("div", { id: "toasts", "aria-live": "assertive" });
    document.body.append(box);
  }
  const note = el("div", { class: `toast ${kind}`, role: "alert" }, message);
  box.append(note);
  setTimeout(() => note.remove(), 6000);
  return note;
}
