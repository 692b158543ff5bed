// The host's corrections of public facts (docs/table-api.md "Corrections by the host"): each
// control shows what the app believes and sends what the physical board shows. Everything
// here comes from the public view: the host is a player and sees nothing secret.
import { el, t, label } from "./common.js";

function row(name, ...children) {
  return el("div", { class: "correct-row", "data-row": name },
    el("span", {}, t(`phone.correct.${name}`)), ...children);
}

// What the host picked in a select and has not sent yet: the panel is redrawn whenever the
// room changes (a phone joins, a seat presses), and a pick must survive that until "Set".
const picked = new Map();

function setter(name, values, current, send, show = String) {
  const select = el("select", { "data-correct": name, "aria-label": t(`phone.correct.${name}`) },
    values.map((v) => el("option", { value: JSON.stringify(v) }, show(v))));
  const kept = picked.get(name);
  select.value = kept && kept.from === JSON.stringify(current) ? kept.value
    : JSON.stringify(current);
  select.onchange = () => picked.set(name, { value: select.value, from: JSON.stringify(current) });
  return row(name, select,
    el("button", { type: "button", "data-set": name,
                   onclick: () => { picked.delete(name); send([name, JSON.parse(select.value)]); } },
       t("phone.correct.set")));
}

// On/off buttons: `items` are [id, words, on]; a tap sends [kind, id, "on"|"off"].
function toggles(kind, items, send) {
  return el("div", { class: "correct-row tokens", "data-row": kind },
    el("span", {}, t(`phone.correct.${kind}`)),
    items.map(([id, words, on]) =>
      el("button", { type: "button", class: on ? "on" : "", "aria-pressed": String(on),
                     "data-token": `${kind}:${id}`,
                     onclick: () => send([kind, id, on ? "off" : "on"]) }, words)));
}

const upTo = (n, from = 0) => Array.from({ length: n - from }, (_, i) => i + from);
const signed = (n) => (n > 0 ? `+${n}` : String(n));

// The seats a correction may name: revealed Infected hold no command, quarantine or tokens.
const players = (view) => view.seats.filter((s) => !s.revealed);

function fatigueRow(view, choices, send) {
  // A fatigue token names a character; the seat playing it is the fatigued player.
  const playedBy = Object.fromEntries(view.seats.map((s) => [s.character, s.name]));
  return toggles("fatigue", tokenIds(view, choices, "fatigue").map((token) => [token,
    playedBy[token] ? `${playedBy[token]} (${label("token", token)})` : label("token", token),
    view.fatigue.tokens.includes(token)]), send);
}

function dieTokensRow(view, send) {
  const seat = el("select", { "data-correct": "die_tokens_seat",
                              "aria-label": t("phone.correct.die_tokens") },
    players(view).map((s) => el("option", { value: s.seat }, s.name)));
  const count = el("select", { "data-correct": "die_tokens",
                               "aria-label": t("phone.correct.die_tokens") },
    upTo(5, -4).map((n) => el("option", { value: n }, signed(n))));
  const showCount = () => {
    const chosen = view.seats[Number(seat.value)];
    if (chosen) count.value = String(chosen.die_tokens);
  };
  seat.onchange = showCount;
  showCount();
  return el("div", { class: "correct-row", "data-row": "die_tokens" },
    el("span", {}, t("phone.correct.die_tokens")), seat, count,
    el("button", { type: "button", "data-set": "die_tokens",
                   onclick: () => send(["die_tokens", Number(seat.value), Number(count.value)]) },
       t("phone.correct.set")),
    el("p", { class: "hint" }, t("phone.correct.die_tokens_hint")));
}

function lostDiceRow(view, send) {
  const lost = view.lost || {};
  return row("lost_dice", ["strong", "weak", "commander"].map((colour) => {
    const n = lost[colour] || 0;
    return el("span", { class: "lost-dice", "data-lost": colour },
      t("phone.correct.lost", { colour: label("colour", colour), n }), " ",
      el("button", { type: "button", "data-lose": colour, disabled: !view.pool[colour],
                     onclick: () => send(["lost_dice", colour, n + 1]) }, t("phone.correct.lose")),
      el("button", { type: "button", "data-found": colour, disabled: !n,
                     onclick: () => send(["lost_dice", colour, n - 1]) }, t("phone.correct.found")));
  }));
}

function eventRows(view, choices, send) {
  if (view.final_event.active) return [];
  const done = view.completed_events;
  const events = choices.events || [];
  const rows = [];
  if (view.event) {
    rows.push(setter("event", events.filter((e) => !done.includes(e)), view.event.card, send,
                     (e) => label("event", e)));
    rows.push(setter("event_cubes", upTo(view.event.needed), view.event.cubes, send));
  }
  rows.push(toggles("completed", events.filter((e) => !view.event || e !== view.event.card)
    .map((e) => [e, label("event", e), done.includes(e)]), send));
  return rows;
}

// Shadow Corporation: who is cleared for the ship, who is amputated, the evacuation cube.
function shadowRows(view, send) {
  const e = view.evacuation;
  if (!e) return [];
  const rows = [toggles("amputation",
    players(view).map((s) => [s.seat, s.name, Boolean(s.amputated)]), send)];
  if (!e.recalled) {
    rows.push(toggles("clearance", players(view).filter((s) => !s.quarantined)
      .map((s) => [s.seat, s.name, e.cleared.includes(s.seat)]), send));
    rows.push(setter("evacuation", upTo(e.vote_at, 1), Math.min(e.track, e.vote_at - 1), send));
  }
  return rows;
}

// The tokens of this game: Shadow Corporation adds the Evac Ship, and the fatigue tokens of
// the characters in play (its pool is built from them).
function tokenIds(view, choices, kind) {
  const base = (kind === "outpost" ? choices.outpost_tokens : choices.fatigue_tokens) || [];
  if (!view.evacuation) return base;
  const extra = kind === "outpost" ? ["evac_ship"]
    : view.seats.map((s) => s.character).filter((c) => c && c !== "daniel");
  return base.concat(extra.filter((id) => !base.includes(id)));
}

export function correctionsPanel(view, choices, send) {
  if (!view) return [];
  const commander = view.seats.find((s) => s.commander);
  const rows = [
    setter("shield", upTo(7), view.shield.tokens, send),
    toggles("outpost", tokenIds(view, choices, "outpost").map((token) =>
      [token, label("token", token), view.outpost.tokens.includes(token)]), send),
    fatigueRow(view, choices, send),
    setter("sabotage", ["none", "shield", "outpost", "fatigue"], view.sabotage || "none", send,
           (a) => (a === "none" ? t("phone.none") : label("area", a))),
    setter("commander", players(view).map((s) => s.seat), commander ? commander.seat : 0, send,
           (seat) => view.seats[seat].name),
    toggles("quarantine", players(view).map((s) => [s.seat, s.name, s.quarantined]), send),
    dieTokensRow(view, send),
    lostDiceRow(view, send),
  ];
  if (view.suspicion !== null) rows.push(setter("suspicion", upTo(4, 1), view.suspicion, send));
  rows.push(...shadowRows(view, send));
  rows.push(...eventRows(view, choices, send));
  rows.push(setter("final_cubes", upTo(view.final_event.needed), view.final_event.cubes, send));
  return [el("details", { class: "corrections" },
    el("summary", {}, t("phone.correct.title")),
    el("p", { class: "hint" }, t("phone.correct.hint")), rows)];
}
