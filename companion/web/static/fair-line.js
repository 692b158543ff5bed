// Fair dealing on the phones and the board page (darkmoon-fair/2, docs/fair.md): the seal
// (the commitment's code, the whole hash on a tap) and the games dealt on this Pi on every
// page; on a seat's page also its own part (fair-phone.js): the code of its bytes, where they
// are, whether the deal left them out, and at game over what its own check found. A game
// no phone's bytes went into says so on every page: dealt by the Pi alone, never "fair".
//
// Nothing here depends on the seat's status: every phone's fair section is the same but for
// its own random codes, so a glance at it tells nothing.
import { el, has, t } from "./common.js";
import { codeOf, hex32, keptFor, keptForGame } from "./fair-phone.js";

// --- what the fair section shows ---

function seal(commitment, code, key, values) {
  return el("details", { class: "fair-commitment" },
    el("summary", {}, t(key, { ...values, code })),
    el("code", {}, t("phone.fair.whole", { commitment })));
}

// t(key, values) with this phone's own codes put in as <code class="fair-own"> (a fixed
// width: a page's layout does not move with its random digits, and a glance test can set
// them aside, as they are the one thing two phones' fair sections differ by).
function said(key, values) {
  const nodes = [];
  const marked = {};
  for (const [name, value] of Object.entries(values)) {
    if (value instanceof Node) {
      marked[name] = `\u0000${nodes.length}\u0000`;
      nodes.push(value);
    } else {
      marked[name] = value;
    }
  }
  return t(key, marked).split(/\u0000(\d+)\u0000/).map((part, i) => (i % 2 ? nodes[part] : part));
}

const own = (hex) => el("code", { class: "fair-own" }, codeOf(hex));

function problemLine(problem) {
  const key = `phone.fair.problem.${problem.key}`;
  return el("li", { "data-problem": problem.key }, has(key) ? t(key, problem) : problem.key);
}

// Where this phone's bytes for the waiting seal are: being sealed, sealed, being shown, shown.
function pendingState(room, pending, seat, entry) {
  const pledged = entry && Array.isArray(pending.pledges) && pending.pledges[seat] === entry.pledge;
  const opened = Boolean(room.seats[seat] && room.seats[seat].revealed);
  return el("p", { class: "fair-given" }, t(opened ? "phone.fair.opened"
    : pending.revealing && pledged ? "phone.fair.opening"
    : pledged ? "phone.fair.sealed" : "phone.fair.sealing"));
}

// The Pi took this phone's bytes and the receipt it showed leaves them out (fair-phone.js).
const leftOutLines = (entry) => (entry && entry.leftOut
  ? [el("p", { class: "fair-left-out", role: "alert" }, t("phone.fair.left_out"))] : []);

// The phone's own lines: its bytes' code and where they are, and at game over its check.
function phoneLines(room, phone) {
  const parts = [];
  const f = room.fair;
  const pending = f.pending;
  const seat = phone.seat;
  const waiting = pending && hex32(pending.commitment) ? keptFor(pending.commitment) : null;
  if (room.phase === "join") {
    if (waiting) {
      parts.push(el("p", { class: "fair-mine" },
                    said("phone.fair.mine", { code: own(waiting.value) })));
    }
    if (pending) parts.push(pendingState(room, pending, seat, waiting), ...leftOutLines(waiting));
    return parts;
  }
  if (f.game !== null && f.verifiable) {
    const entry = keptForGame(f.game);
    parts.push(el("p", { class: "fair-mine" }, entry && Array.isArray(entry.pledges)
      ? said("phone.fair.mine_in", { code: own(entry.value) }) : t("phone.fair.none")),
      ...leftOutLines(entry));
    if (room.phase === "over") {
      const result = phone.checks.get(f.game) || { state: "checking", problems: [] };
      parts.push(el("div", { class: `fair-result ${result.state}`, id: "fair-result",
                             "data-fair-check": result.state, role: "status" },
        el("p", {}, t(`phone.fair.result.${result.state}`)),
        result.problems.length ? el("ul", {}, result.problems.map(problemLine)) : null));
    }
  }
  if (pending && waiting) {  // the next game's seal, published at this one's deal
    parts.push(el("p", { class: "fair-next" }, said("phone.fair.next", {
      code: pending.code, mine: own(waiting.value) })),
      pendingState(room, pending, seat, waiting));
  }
  return parts;
}

// The fair section of a page. `phone`: the seat page's FairPhone (its own lines too).
export function fairLine(room, phone = null) {
  const f = room && room.fair;
  if (!f || !room.seats.length) return null;
  const parts = [];
  const joining = room.phase === "join";
  // A seat's phone shows the seal it kept for the game (the one it saw before it gave).
  const kept = phone && f.game !== null ? keptForGame(f.game) : null;
  if (joining && f.pending) {
    parts.push(seal(f.pending.commitment, f.pending.code, "phone.fair.seal",
                    { game: f.pending.game }));
  } else if (f.commitment) {
    parts.push(kept ? seal(kept.commitment, codeOf(kept.commitment), "phone.fair.seal",
                           { game: f.game })
      : seal(f.commitment, f.code, "phone.fair.seal", { game: f.game }));
    if (f.box_alone) parts.push(el("p", { class: "fair-alone" }, t("phone.fair.box_alone")));
  } else if (!joining) {
    parts.push(el("p", {}, t("phone.fair.seeded")));
  }
  if (phone) parts.push(...phoneLines(room, phone));
  if (f.game && !joining) {
    parts.push(el("p", { class: "fair-dealt" },
      t("phone.fair.dealt", { game: f.game, dealt: f.games_dealt })));
  }
  if (room.phase === "over" && f.commitment) {
    parts.push(el("p", { class: "fair-check" },
      el("a", { href: `/fair?game=${f.game}`, target: "_blank" }, t("phone.fair.check")), " · ",
      el("a", { href: `/api/fair/record?game=${f.game}`, download: `darkmoon-game-${f.game}.json` },
         t("phone.fair.record"))));
  }
  return el("section", { class: "fair", id: "fair" }, parts);
}
