// A seat's phone in the fair deal (darkmoon-fair/2, docs/fair.md): before it gives anything
// it reads the seal of the deal waiting for it, keeps 32 bytes of its own for that seal (one
// value per seal, kept across retries and reloads: a Pi that refuses bytes it dislikes gets
// the same ones again), pledges their hash, and opens them only once every seat's pledge is
// public and its own is among them. At game over it fetches the record and checks it by
// itself (checkDeal), with the verify page's own code (fair-check.js, globalThis.DarkMoonFair,
// which the seat page loads first). It keeps the receipt it is shown before the deal (every
// pledge the deal will use, by seat): if the Pi took its bytes and the receipt leaves them
// out, it says so at once, and at game over the record's deal must be exactly that receipt.
// What it shows is fair-line.js's.
import { call, t } from "./common.js";

const PREFIX = "darkmoon-fair:";
const KEPT_MOST = 16;  // the seals a phone remembers: a few evenings of games
export const hex32 = (value) => typeof value === "string" && /^[0-9a-f]{64}$/.test(value);
const fair = () => globalThis.DarkMoonFair;  // the seat page loads it (fair-check.js)
// What people read of 32 bytes (fair-check.js's code: the seat page's; the pages without it
// show the codes the room view gives).
export const codeOf = (hex) => fair().code(hex);

// --- what the phone keeps, for each seal: {commitment, game, value, pledge, seat, at} and,
// once it opened its bytes, `pledges`: every seat's pledge as it saw them then; `opened`
// once the Pi answered that it has them; `receipt`: the first receipt it was shown for that
// seal; `leftOut` when the Pi took its bytes and that receipt leaves them out ---

const memory = new Map();  // also where it is kept if the browser refuses its storage
let storageRefused = false;

function read(commitment) {
  try {
    const raw = localStorage.getItem(PREFIX + commitment);
    if (raw) return JSON.parse(raw);
  } catch (refused) { /* private browsing: memory only */ }
  return memory.get(commitment) || null;
}

function write(entry) {
  memory.set(entry.commitment, entry);
  try {
    localStorage.setItem(PREFIX + entry.commitment, JSON.stringify(entry));
  } catch (refused) {
    storageRefused = true;
  }
  return entry;
}

function everyKept() {
  const found = new Map(memory);
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(PREFIX)) {
        const entry = JSON.parse(localStorage.getItem(key));
        if (entry && hex32(entry.commitment)) found.set(entry.commitment, entry);
      }
    }
  } catch (refused) { /* memory only */ }
  return [...found.values()];
}

// The oldest seals go once there are more than KEPT_MOST: their games are long over.
function forgetOld() {
  const old = everyKept().sort((a, b) => (b.at || 0) - (a.at || 0)).slice(KEPT_MOST);
  for (const entry of old) {
    memory.delete(entry.commitment);
    try { localStorage.removeItem(PREFIX + entry.commitment); } catch (refused) { /* none */ }
  }
}

function randomHex() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return fair().toHex(bytes);
}

// The phone's bytes for this seal: made once, then the same on every retry and reload.
export function keep(pending, seat = null) {
  if (!pending || !hex32(pending.commitment)) return null;
  let entry = read(pending.commitment);
  const whole = entry && hex32(entry.value)
    && entry.pledge === fair().pledgeOf(entry.commitment, entry.value);
  if (!whole) {
    const value = randomHex();
    entry = { commitment: pending.commitment, game: pending.game, value,
              pledge: fair().pledgeOf(pending.commitment, value), seat, pledges: null,
              at: Date.now() };
    write(entry);
    forgetOld();
  } else if (seat !== null && entry.seat !== seat) {
    entry = write({ ...entry, seat });
  }
  return entry;
}

export const keptFor = (commitment) => (hex32(commitment) ? read(commitment) : null);

// The Pi took this phone's bytes (it answered the reveal) and the receipt it showed leaves
// their pledge out: a deal chosen among those with and without them.
const leftOut = (entry) => Boolean(entry.opened && Array.isArray(entry.receipt)
  && entry.receipt[entry.seat] !== entry.pledge);
const settled = (entry) => write({ ...entry, leftOut: leftOut(entry) });

// The seal this phone opened its bytes for as game `game` (the one whose pledges it kept).
export function keptForGame(game) {
  const kept = everyKept().filter((e) => e.game === game);
  return kept.find((e) => Array.isArray(e.pledges)) || kept[0] || null;
}

// `send({commitment, pledge})` (a claim, or the host's sit) with the pledge for the seal the
// room shows now; told the seal changed meanwhile (a new game set up, a game dealt), it looks
// again and pledges to the new one. Without a seal to pledge to (none published) it sends none.
export async function withPledge(send, seat = null) {
  for (let tries = 0; ; tries++) {
    const board = await call("GET", "/api/board");
    const entry = keep(board.room.fair && board.room.fair.pending, seat);
    const body = entry ? { commitment: entry.commitment, pledge: entry.pledge } : {};
    try {
      return { answer: await send(body), entry };
    } catch (error) {
      if (error.code !== "commitment_changed" || tries >= 4) throw error;
    }
  }
}

// --- the seat page's part: pledge, reveal, remember what it was shown, check at game over ---

export class FairPhone {
  // `code`: the seat's code (seal.js): its claim, pledge and reveal are sealed ops.
  constructor(code, changed) {
    this.code = code;
    this.changed = changed;  // the page draws again when a check ends
    this.seat = null;
    this.busy = new Set();   // requests in flight, by "pledge:<commitment>"/"reveal:<commitment>"
    this.seen = new Map();   // every fact shown during play, by its JSON: for the check
    this.seenGame = null;
    this.seenTo = -1;  // the latest event whose facts are kept
    this.checks = new Map(); // game -> {state, problems}
  }

  // The claim, with this phone's pledge for the seal waiting (kept before it is sent).
  async claim() {
    try {
      const { answer } = await withPledge((body) => this.code.call("claim", body));
      this.seat = answer.seat;
    } catch (error) {
      // Reopened in a browser that keeps nothing (storage refused): its bytes of before are
      // gone and the seat's first pledge stands, so it claims without one (its seat gets the
      // filler, as for a phone that gave nothing).
      if (!(storageRefused && error.code === "bad_request")) throw error;
      this.seat = (await this.code.call("claim", {})).seat;
    }
  }

  // One request of a kind at a time. Refused, the next view tries again; unanswered (no
  // network, the Pi busy), it tries again in a second too: the deal does not wait long.
  once(key, request) {
    if (this.busy.has(key)) return;
    this.busy.add(key);
    request().catch((error) => {
      if (error.status === 0 || error.status >= 500) {
        setTimeout(() => this.last && this.onView(this.last), 1000);
      }
    }).finally(() => this.busy.delete(key));
  }

  // Every view: pledge for a seal published (the next game's too, during play), open the
  // bytes when the reveal is open, remember what was shown, and check the deal at its end.
  onView(data) {
    this.last = data;
    const room = data.room;
    const seat = data.view && data.view.you ? data.view.you.seat : this.seat;
    if (seat === null || seat === undefined || !room.fair) return;
    this.seat = seat;
    const pending = room.fair.pending;
    if (pending && hex32(pending.commitment) && Array.isArray(pending.pledges)) {
      const entry = keptFor(pending.commitment);
      if (entry && !entry.inRoom && pending.pledges[seat] === entry.pledge) {
        write({ ...entry, seat, inRoom: true });  // its pledge seen in its seat's place
      }
      if (!pending.revealing && pending.pledges[seat] === null) this.pledge(pending, seat);
      const told = room.seats[seat] && room.seats[seat].revealed;
      if (pending.revealing && !told) this.reveal(pending, seat);
    }
    if (pending && hex32(pending.commitment)) this.shown(pending.commitment, pending.receipt);
    if (hex32(room.fair.commitment)) this.shown(room.fair.commitment, room.fair.receipt);
    const view = data.view;
    if (view && view.log && room.fair.game !== null) this.remember(room.fair.game, view);
    if (view && view.outcome && room.phase === "over" && room.fair.verifiable
        && !this.checks.has(room.fair.game)) {
      this.check(room.fair.game, seat, view.log || [], room.fair.box_alone);
    }
  }

  // The receipt of a seal this phone gave to, the first time it is shown (before the deal,
  // or with the game dealt from it): kept, and checked against its own bytes at once.
  shown(commitment, receipt) {
    const entry = keptFor(commitment);
    if (!entry || !Array.isArray(receipt) || Array.isArray(entry.receipt)) return;
    if (settled({ ...entry, receipt: receipt.slice() }).leftOut) this.changed();
  }

  pledge(pending, seat) {
    const entry = keep(pending, seat);
    this.once(`pledge:${entry.commitment}`, () => this.code.call("pledge",
      { commitment: entry.commitment, pledge: entry.pledge }));
  }

  // Opened only if the pledge in its seat's slot is this phone's own: the list of every
  // seat's pledge it saw then is kept, and the record must show exactly that list.
  // A pledge it saw in its place and gone from it when the reveal opens was taken out by
  // the Pi: the phone keeps the list it was shown, does not open its bytes, and at game over
  // says its part is not in.
  reveal(pending, seat) {
    const entry = keptFor(pending.commitment);
    if (!entry || (pending.pledges[seat] !== entry.pledge && !entry.inRoom)) return;
    if (pending.pledges[seat] !== entry.pledge) {
      if (!Array.isArray(entry.pledges)) write({ ...entry, pledges: pending.pledges.slice() });
      return;
    }
    const kept = Array.isArray(entry.pledges) ? entry
      : write({ ...entry, seat, pledges: pending.pledges.slice() });
    this.once(`reveal:${kept.commitment}`, async () => {
      await this.code.call("reveal", { commitment: kept.commitment, value: kept.value });
      // the Pi has its bytes: a receipt already shown must name them
      if (settled({ ...keptFor(kept.commitment), opened: true }).leftOut) this.changed();
    });
  }

  remember(game, view) {
    if (this.seenGame !== game) { this.seen = new Map(); this.seenGame = game; this.seenTo = -1; }
    // An event's facts are shown together, when it happens: only the events new since the
    // last view are kept, so a view costs the new facts, not the whole log again.
    let latest = this.seenTo;
    for (const fact of view.log) {
      if (!(fact.seq > this.seenTo)) continue;
      this.seen.set(canon(fact), fact);
      latest = Math.max(latest, fact.seq);
    }
    this.seenTo = latest;
  }

  // `boxAlone`: the room says no phone's bytes went into this game's deal.
  async check(game, seat, log, boxAlone) {
    this.checks.set(game, { state: "checking", problems: [] });
    const kept = keptForGame(game);
    // this phone gave nothing to this game: it cannot check it, and says so
    let result = { state: boxAlone ? "alone" : "none", problems: [] };
    if (kept && (Array.isArray(kept.pledges) || kept.inRoom)) {
      try {
        const record = await call("GET", `/api/fair/record?game=${encodeURIComponent(game)}`);
        // Its bytes went in if the Pi took them (or the record says so: an answer lost).
        const mine = record && Array.isArray(record.contributions)
          ? record.contributions[seat] : null;
        const went = Array.isArray(kept.pledges)
          && (kept.opened || (mine && mine.value === kept.value));
        result = went ? verdict(checkDeal(record, kept, seat, log, [...this.seen.values()]))
          : late(record, kept, seat);
      } catch (error) {
        result = { state: "failed", problems: [{ key: "unreadable", why: error.message }] };
      }
    }
    this.checks.set(game, result);
    this.changed();
  }
}

const verdict = (problems) => ({ state: problems.length ? "failed" : "ok", problems });

// A phone that pledged and never opened its bytes (asleep, offline while the deal waited):
// its seat must be the filler with its pledge, as the record of any seat that never opened,
// and the record must add up and keep to the receipt it was shown. It cannot vouch for the
// deal then (nor can anyone if no phone's bytes went in); anything else is not fair.
function late(rec, kept, seat) {
  const mine = rec && Array.isArray(rec.contributions) ? rec.contributions[seat] : null;
  const honest = rec.commitment === kept.commitment && mine && mine.from === "filler"
    && mine.pledge === kept.pledge;
  const { checked, problems: found } = pageChecks(rec, kept);
  const problems = [...(honest ? [] : [{ key: "mine", seat: seat + 1 }]), ...found,
                    ...receiptKept(rec, kept)];
  if (problems.length) return { state: "failed", problems };
  return { state: checked.box_alone ? "alone" : "late", problems };
}

// The verify page's own checks of the record (fair-check.js), as this phone's problems.
function pageChecks(rec, kept) {
  const checked = fair().checkRecord(rec, { commitment: kept.commitment });
  return { checked,
           problems: checked.problems.map((problem) => ({ key: "record",
                                                          why: fair().say(problem, t) })) };
}

// The receipt this phone was shown before the deal is the record's.
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const receiptKept = (rec, kept) => (Array.isArray(kept.receipt)
  && !same(kept.receipt, rec.receipt) ? [{ key: "receipt" }] : []);

// A fact as one string, whatever the order of its keys.
function canon(value) {
  if (Array.isArray(value)) return `[${value.map(canon).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canon(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

const without = (fact) => { const { seq, ...rest } = fact; return rest; };

// The phone's own check of the record (`rec`) of the game it gave `kept` to. [] if fair, or
// each problem as {key, ...values} (phone.fair.problem.<key>). What it compares:
//  1. the record's commitment is the one this phone kept before it gave anything;
//  2. its seat's contribution is from "phone", with the value (and pledge) it kept;
//  3. the seats' pledges are exactly the list it saw when it opened its bytes (a seat with no
//     pledge then must be "filler" with no pledge: none made up after the reveal); the
//     record's receipt is the one it was shown before the deal, and if the Pi took its
//     bytes (answered its reveal) that receipt names its pledge (the page's checks, item 4,
//     then hold the deal to exactly that receipt);
//  4. the page's own checks pass (fair-check.js: the commitment binds the box, the game's
//     number and the secret; each filler is the secret's; every chance outcome of every
//     event is what the stream gives) and the game in the record is over;
//  5. what the game showed this phone is the record's. Its log at game over holds every fact
//     of the game, each with `seq`, the state id of the event it came from (the record's
//     events[seq]): grouped by seq, in order, they must be exactly each event's `facts`.
//     Every fact it was shown during play (its status card, the cards it drew, its own
//     rolls, the public log), with its seq, must be among that event's facts too. And the
//     faces of each of its own rolls ("rolled", "corporation_rolled": in the record, in its
//     log and as shown during play) must be a run of consecutive chance outcomes of that
//     event: the outcomes item 4 showed to be the stream's, so the dice it rolled came from
//     the seal and the seats' bytes, not only from the record's say-so.
export function checkDeal(rec, kept, seat, log, seen = []) {
  const problems = [];
  if (!rec || typeof rec !== "object") return [{ key: "unreadable", why: "" }];
  if (rec.commitment !== kept.commitment) {
    problems.push({ key: "commitment", saw: codeOf(kept.commitment),
                    code: codeOf(String(rec.commitment)) });
  }
  const contributions = Array.isArray(rec.contributions) ? rec.contributions : [];
  const mine = contributions[seat];
  if (!mine || mine.seat !== seat || mine.from !== "phone" || mine.value !== kept.value
      || mine.pledge !== kept.pledge) {
    problems.push({ key: "mine", seat: seat + 1 });
  }
  const pledges = kept.pledges || [];
  const agree = contributions.length === pledges.length && pledges.every((p, i) =>
    contributions[i] && (p === null ? contributions[i].from === "filler"
                                      && contributions[i].pledge === null
                                    : contributions[i].pledge === p));
  if (!agree) problems.push({ key: "pledges" });
  problems.push(...receiptKept(rec, kept));
  if (kept.leftOut || (kept.opened && !(Array.isArray(rec.receipt)
                                        && rec.receipt[seat] === kept.pledge))) {
    problems.push({ key: "left_out" });
  }
  const { checked: verdict, problems: found } = pageChecks(rec, kept);
  problems.push(...found);
  if (!verdict.problems.length && !verdict.over) problems.push({ key: "over" });
  if (verdict.problems.length) return problems;  // the events cannot be read as a record's
  const events = rec.events;
  const shown = new Map();  // seq -> the facts the phone's log had for that event
  for (const fact of log) {
    const list = shown.get(fact.seq) || [];
    list.push(canon(without(fact)));
    shown.set(fact.seq, list);
  }
  let differs = null;
  events.forEach((event, e) => {
    const wanted = event.facts.map(canon).join("\n");
    if (differs === null && (shown.get(e) || []).join("\n") !== wanted) differs = e;
  });
  for (const seq of shown.keys()) {
    const known = Number.isInteger(seq) && seq >= 0 && seq < events.length;
    if (differs === null && !known) differs = seq;
  }
  for (const fact of seen) {
    const event = events[fact.seq];
    if (differs === null && !(event && event.facts.map(canon).includes(canon(without(fact))))) {
      differs = fact.seq;
    }
  }
  if (differs !== null) problems.push({ key: "shown", event: differs });
  const recorded = events.flatMap((event, e) => event.facts.map((fact) => ({ seq: e, ...fact })));
  for (const fact of [...recorded, ...log, ...seen]) {
    if (fact.seat !== seat || !["rolled", "corporation_rolled"].includes(fact.k)) continue;
    const faces = fact.k === "rolled" ? (fact.dice || []).map((d) => d[1]) : fact.faces || [];
    const event = events[fact.seq];
    if (!event || !run(event.chance, faces)) {
      problems.push({ key: "dice", event: fact.seq });
      break;
    }
  }
  return problems;
}

// Whether `faces` are consecutive items of `outcomes`.
function run(outcomes, faces) {
  if (!faces.length) return true;
  for (let i = 0; i + faces.length <= outcomes.length; i++) {
    if (faces.every((f, j) => outcomes[i + j] === f)) return true;
  }
  return false;
}
