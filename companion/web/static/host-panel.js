// The host's controls, shared by the host's page and the seat page of a host who also plays:
// the seats (who has joined, re-bind, hand a bot's seat to a person, take a seat to play it),
// start, play again, the game record and the corrections. Everything here comes from the host
// payload, which is the public board only: the host is a player and sees nothing secret, and
// a host's seat page shows the same controls whatever the host's own status card says.
import { call, codeFor, el, live, t, toast } from "./common.js";
import { correctionsPanel } from "./corrections.js";
import { withPledge } from "./fair-phone.js";

// A host's op on the host code (`code`, seal.js): a refusal is said in a toast (a stale
// state is only fetched again by `stale`), and the answer is null.
export function hostPost(code, stale) {
  return async (op, body) => {
    try {
      return await code.call(op, body);
    } catch (error) {
      if (error.code === "stale_state") stale();
      else toast(error.message, "error");
      return null;
    }
  };
}

// The seats panel and its buttons. `redraw()` draws the page again (a first tap arms a
// button); `seatPage`: drawn on the host's own seat page rather than the host's page.
export function hostControls(code, post, redraw, { seatPage = false } = {}) {
  // The seat's re-bind or hand-over waiting for a second, confirming tap: "rebind:2"
  let confirming = null;

  // A button that acts on a seat only at a second tap: the first arms it (in red), the
  // second sends op `route` and says `done`. The words are phone.host.<key> and <key>_confirm.
  function twoTaps(s, route, key, done) {
    const id = `${route}:${s.seat}`;
    const armed = confirming === id;
    const words = key.replace("-", "_");
    return el("button", {
      type: "button", class: armed ? "danger" : "", [`data-${key}`]: s.seat,
      onclick: async () => {
        if (!armed) { confirming = id; redraw(); return; }
        confirming = null;
        if (await post(route, { seat: s.seat })) toast(t(`phone.host.${done}`, { name: s.name }));
        redraw();
      } }, t(armed ? `phone.host.${words}_confirm` : `phone.host.${words}`));
  }

  // The host's phone takes a free seat to play it too, and its page becomes that seat's,
  // with these controls folded in it: one page for both jobs. Its pledge goes with the sit,
  // from the bytes it keeps for the deal's seal (fair-phone.js), as a seat page's claim.
  function sitButton(s) {
    return el("button", {
      type: "button", class: "primary", "data-sit": s.seat,
      onclick: async () => {
        // The fair-dealing code the seat page loads first (a classic script): here on demand.
        if (!globalThis.DarkMoonFair) await import("./fair-check.js");
        let sat = null;
        try {
          sat = (await withPledge((fair) => code.call("sit", { seat: s.seat, ...fair }),
                                  s.seat)).answer;
        } catch (error) {
          toast(error.message, "error");
        }
        if (sat) location.assign(`/s#${encodeURIComponent(sat.token)}`);
      } }, t("phone.host.sit"));
  }

  // `mine`: {seat, token} of the seat the host's phone plays (seat null if none).
  function seatsPanel(payload, mine = { seat: null }) {
    const room = payload.room;
    if (!room.seats.length) return [el("p", {}, t("phone.host.no_game"))];
    const sitting = mine.seat !== null && mine.seat !== undefined;
    const rows = room.seats.map((s) => {
      const state = s.bot ? "bot" : s.claimed ? "joined" : "not_joined";
      const rebind = s.claimed && s.seat !== mine.seat && twoTaps(s, "rebind", "rebind", "rebound");
      // A bot's seat goes to a person only by this deliberate act, announced everywhere.
      const handOver = s.bot && twoTaps(s, "handover", "hand-over", "handed_over");
      const sit = !seatPage && !sitting && !s.claimed && !s.bot && sitButton(s);
      return el("li", { class: state, "data-seat": s.seat }, el("span", {}, s.name), " — ",
                t(`phone.lobby.${state}`),
                s.seat === mine.seat ? el("strong", { class: "you" }, " ", t("phone.host.you")) : "",
                " ", rebind || handOver || sit || "");
    });
    const parts = [el("h2", {}, t("phone.host.seats"))];
    if (sitting && !seatPage) {
      parts.push(el("p", {}, el("a", { class: "button primary", id: "my-seat",
                                       href: `/s#${encodeURIComponent(mine.token)}` },
                                t("phone.host.my_seat", { name: room.seats[mine.seat].name }))),
                 el("p", { class: "hint" }, t("phone.host.my_seat_hint")));
    } else if (!seatPage && room.seats.some((s) => !s.claimed && !s.bot)) {
      parts.push(el("p", { class: "hint", id: "sit-hint" }, t("phone.host.sit_hint")));
    }
    parts.push(el("ul", { class: "join" }, rows));
    if (room.phase === "over") {
      // The same phones stay on the same seats: one tap deals the next game. As for a start,
      // only once every seat has a phone or a bot (a seat re-bound since waits for its phone).
      const held = room.seats.every((s) => s.claimed || s.bot);
      parts.push(el("button", { type: "button", class: "primary", id: "again", disabled: !held,
                                onclick: () => post("again") }, t("phone.host.again")),
                 el("p", { class: "hint", id: "again-hint" },
                    t(held ? "phone.host.again_hint" : "phone.host.again_waits")),
                 // Every roll, card and vote in words, in this phone's language: only after
                 // the game, when nothing is secret any more (the server refuses it before).
                 el("button", { type: "button", id: "record", onclick: () => saveRecord(code) },
                    t("phone.host.save_record")),
                 el("p", { class: "hint" }, t("phone.host.record_hint")));
    }
    if (room.phase === "join") {
      parts.push(el("button", { type: "button", class: "primary", id: "start",
                                disabled: !payload.can_start,
                                onclick: () => post("start") }, t("phone.host.start")));
      parts.push(el("p", { class: payload.can_start ? "hint ready" : "hint", id: "start-hint" },
                    t(payload.can_start ? "phone.host.everyone" : "phone.host.start_hint")));
    }
    return parts;
  }

  return { seatsPanel };
}

// The game record, fetched sealed (op `record`, in the page's language) and saved as the
// text file the Pi names: a Blob and a link with `download`, clicked once.
async function saveRecord(code) {
  let record;
  try {
    record = await code.call("record");
  } catch (error) {
    toast(error.message, "error");
    return;
  }
  const url = URL.createObjectURL(new Blob([record.text], { type: "text/plain;charset=utf-8" }));
  const link = el("a", { href: url, download: record.name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

// --- the host's own seat page: the host controls in a drawer ---

// Called once the seat page has claimed its seat (`seatCode`: its code, seal.js). Only the
// phone that hosts gets a host code back (sealed, as every code); any other seat's page gets
// none and shows nothing. The drawer opens a session of its own with the host code.
export async function hostDrawer(seatCode) {
  let host = null;
  try {
    host = (await seatCode.call("host")).host;
  } catch (error) {
    document.body.dataset.host = "unknown";
    return;  // the seat page says what went wrong
  }
  // Whether this phone hosts, once asked: for anyone checking the page (tests, support).
  document.body.dataset.host = host ? "yes" : "no";
  if (!host) return;
  const code = codeFor(host);
  let payload = null;
  let choices = null;
  let stream = null;
  let mine = { seat: null };
  const drawer = el("details", { id: "host-drawer", class: "host-drawer" });
  const summary = el("summary", { id: "host-toggle" });
  const body = el("div", { id: "host-controls" });
  drawer.append(summary, body);
  const anchor = document.getElementById("mine");
  anchor.parentNode.insertBefore(drawer, anchor);

  // A refusal (the host role moved, the game was replaced, the host code is no more): the
  // drawer goes; offline, it waits to reconnect.
  const failed = (error) => {
    if (error.status === 403 || error.status === 404) gone();
  };
  // The payload fetched again: a stale correction.
  const refresh = () => (stream ? stream.refresh() : undefined);
  const post = hostPost(code, refresh);
  const controls = hostControls(code, post, () => draw(), { seatPage: true });

  let first = true;

  function draw() {
    if (!payload) return;
    const phase = payload.room.phase;
    // Open at first while seats join (the host starts the game from here), folded otherwise.
    if (first) drawer.open = phase === "join";
    first = false;
    const ready = phase === "join" && payload.can_start;
    summary.className = ready ? "ready" : "";
    summary.replaceChildren(t("phone.host.title"),
                            ready ? ` · ${t("phone.host.ready")}` : "");
    const wasOpen = Boolean(body.querySelector(".corrections-box details[open]"));
    const corrections = el("section", { class: "corrections-box" },
      phase === "play" && choices
        ? correctionsPanel(payload.view, choices, (option) =>
            post("correct", { option, state_id: payload.view.state_id }))
        : []);
    const details = corrections.querySelector("details");
    if (details) details.open = wasOpen;
    body.replaceChildren(...controls.seatsPanel(payload, mine), corrections,
      el("p", {}, el("a", { class: "button", id: "host-page",
                            href: `/h#${encodeURIComponent(host)}` },
                     t("phone.host.open_host_page"))),
      el("p", { class: "hint" }, t("phone.host.open_host_page_hint")));
  }

  // The host's role or the game may change under it (a new host code made at the Pi, a
  // game replaced): the drawer then goes, and the seat page goes on as any seat's.
  function gone() {
    if (stream) stream.stop();
    drawer.remove();
  }

  try {
    choices = await call("GET", "/api/choices");
    const sat = await code.call("my_seat");
    mine = { seat: sat.seat, token: sat.token };
  } catch (error) {
    // the corrections and the seat marked as this phone's wait for a later visit
  }
  // Its own sealed stream, woken with the page (common.js live).
  stream = live({ code, onView: (data) => { payload = data; draw(); }, onError: failed });
  // The page's EN/ES toggle: the drawer follows the language the page is read in.
  new MutationObserver(() => { if (drawer.isConnected) { draw(); stream.reopen(); } })
    .observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
}
