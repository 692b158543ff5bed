// The public board as every page shows it (seat phones below their own panel, the host, and
// the TV board page): built only from the public part of a payload, so it can never show
// a secret that the view does not already give this audience.
import { el, has, t, label } from "./common.js";
import { fairLine } from "./fair-line.js";

export function seatName(view, seat) {
  const s = view && view.seats && view.seats[seat];
  return s ? s.name : `#${seat + 1}`;
}

export function banner(payload) {
  const { view, text, room } = payload;
  // On the phone of a seat the game waits for, in the second person: "Your turn: …".
  const mine = view && !view.outcome && view.you && view.you.decision;
  if (mine && mine.options.length && !mine.chosen && view.waiting
      && view.waiting.seats.includes(view.you.seat)) {
    return t("phone.your_turn_to", { decision: (text && text.decision)
                                                || label("decision", mine.decision) });
  }
  if (text && text.banner) return text.banner;
  if (!view) return t(`phone.phase.${room ? room.phase : "start"}`);
  if (view.outcome) return t("phone.game_over", { winner: label("winner", view.outcome.winner) });
  const w = view.waiting;
  if (!w) return "";
  const names = w.seats.map((s) => seatName(view, s)).join(", ");
  return t("phone.waiting_for", { names, decision: label("decision", w.decision) });
}

function track(name, ...value) {
  return el("div", { class: "track" }, el("span", { class: "track-name" }, name),
            el("span", { class: "track-value" }, ...value));
}

function tokens(kind, list) {
  return list.length ? list.map((id) => label(kind, id)).join(", ") : "—";
}

export function tracks(view) {
  const event = view.event;
  const final = view.final_event;
  const failure = view.shield.failure_condition;
  return el("section", { class: "tracks", "aria-label": t("phone.board") },
    track(t("phone.track.shield"), `${view.shield.tokens}/6`,
          failure ? ` (${t("phone.failure")}: ${failure})` : ""),
    track(t("phone.track.outpost"), `${view.outpost.tokens.length}/6 `,
          el("small", {}, tokens("token", view.outpost.tokens))),
    track(t("phone.track.fatigue"), `${view.fatigue.tokens.length}/6 `,
          el("small", {}, tokens("token", view.fatigue.tokens))),
    track(t("phone.track.sabotage"), view.sabotage ? label("area", view.sabotage) : "—"),
    track(t("phone.track.suspicion"), String(view.suspicion)),
    view.evacuation ? evacuation(view) : null,
    view.threats ? track(t("phone.track.threats"), Object.entries(view.threats.tokens)
      .map(([seat, [threat, wild]]) => `${seatName(view, Number(seat))}: ${label("threat", threat)}`
           + (wild ? " *" : "")).join(", ") || "—") : null,
    track(t("phone.track.event"), event ? `${label("event", event.card)} ${event.cubes}/${event.needed}` : "—"),
    event ? about("event", event.card) : null,
    track(t("phone.track.final"), `${label("final", final.card)} ${final.cubes}/${final.needed}`,
          final.active ? ` ${t("phone.final_active")}` : ""),
    about("final", final.card),
    track(t("phone.track.pool"), dice(view.pool)),
    Object.values(view.lost || {}).some((n) => n > 0)
      ? track(t("phone.track.lost"), dice(view.lost)) : null,
    view.task ? task(view) : null);
}

// Shadow Corporation: the evacuation track, who is cleared, and whether the ship may leave.
function evacuation(view) {
  const e = view.evacuation;
  if (e.recalled) return track(t("phone.track.evacuation"), t("phone.evacuation.recalled"));
  const cleared = e.cleared.map((s) => seatName(view, s)).join(", ") || "—";
  return el("div", { class: "evacuation", id: "evacuation" },
    track(t("phone.track.evacuation"), `${e.track}/${e.vote_at}`),
    track(t("phone.evacuation.cleared"), `${cleared} (${e.cleared.length}/${e.seats})`),
    track(t("phone.evacuation.ship"),
          t(e.ready ? "phone.evacuation.ready" : "phone.evacuation.refuelling")));
}

// What a card does, in this project's words (game.text.*): the events, final events, task
// cards and characters are public, so every page may show them. A malfunction's text is its
// type's, named by the card id (life_support_6 -> life_support). The Status card's text is
// not here: only the held card shows it (seat.js).
export function cardText(kind, id) {
  const key = kind === "task" && !has(`game.text.task.${id}`)
    ? `game.text.malfunction.${String(id).replace(/_\d+$/, "")}` : `game.text.${kind}.${id}`;
  return has(key) ? t(key) : "";
}

// "What does it do?" under a card, closed until tapped; the board is redrawn on every change,
// so which ones are open is kept here, per card.
const opened = new Set();

function kept(key, attrs, ...children) {
  return el("details", { ...attrs, open: opened.has(key),
                         ontoggle: (event) => { (event.target.open ? opened.add(key)
                                                                   : opened.delete(key)); } },
            ...children);
}

function about(kind, id) {
  const text = cardText(kind, id);
  if (!text) return null;
  return kept(`${kind}:${id}`, { class: "card-text", "data-card": id, "data-kind": kind },
    el("summary", {}, t("phone.card.what")), el("p", {}, text));
}

// The abilities of the characters at the table (a revealed Infected's card is discarded).
function abilities(view) {
  const shown = view.seats.filter((s) => s.character && !s.revealed);
  if (!shown.length) return null;
  return kept("characters", { class: "card-text characters", id: "characters" },
    el("summary", {}, t("phone.characters.title")),
    el("p", { class: "hint" }, t("phone.characters.hint")),
    el("dl", {}, shown.flatMap((s) => [
      el("dt", {}, `${label("character", s.character)} (${s.name})`),
      el("dd", { "data-character": s.character }, cardText("character", s.character))])));
}

export function dice(counts) {
  return el("span", { class: "dice-counts" }, ...["strong", "weak", "commander"].map((c) =>
    el("span", { class: `die-count ${c}`, title: t(`phone.die.${c}`) }, `${counts[c] || 0}`)));
}

export function face(colour, value, attrs = {}) {
  return el("span", { class: `die ${colour}`, ...attrs }, value > 0 ? `+${value}` : String(value));
}

function task(view) {
  const k = view.task;
  const participation = Object.entries(k.participation).map(([seat, choice]) =>
    el("li", {}, `${seatName(view, Number(seat))}: `,
       el("b", { class: `part-${choice}` }, t(`phone.participation.${choice}`))));
  return el("div", { class: "task" },
    el("div", {}, el("b", {}, label("task", k.card)), " ",
       k.kind === "malfunction" ? t("phone.task.malfunction", { difficulty: k.difficulty,
                                                               total: k.success_total }) : ""),
    about("task", k.card),
    view.evacuation && k.kind === "malfunction" ? el("div", { class: "corporation" },
      t("phone.task.corporation"), " ",
      k.corporation.length ? k.corporation.map((v) => face("corporation", v)) : "…") : null,
    participation.length ? el("ul", { class: "participation" }, participation) : null,
    k.submitted.length ? el("div", { class: "submitted" }, t("phone.task.submitted"), " ",
      k.submitted.map(([seat, value]) => el("span", { class: "sub" },
        seatName(view, seat), " ", face("plain", value)))) : null);
}

export function seats(view) {
  const w = view.waiting;
  const rows = view.seats.map((s) => {
    const marks = [];
    if (s.commander) marks.push(el("span", { class: "mark", title: t("phone.commander") }, "★"));
    if (s.active) marks.push(el("span", { class: "mark", title: t("phone.active") }, "▶"));
    const facts = [];
    if (s.fatigued) facts.push(t("phone.fatigued"));
    if (s.quarantined) facts.push(t("phone.quarantined"));
    if (s.amputated) facts.push(t("phone.amputated"));
    if (s.status) facts.push(label("status", s.status));
    let waiting = "";
    if (w && w.seats.includes(s.seat)) waiting = "…";
    if (w && w.chosen && w.chosen.includes(s.seat)) waiting = "✓";
    return el("tr", { "data-seat": s.seat, class: s.active ? "active" : "" },
      el("td", {}, marks, " ", s.name),
      el("td", {}, label("character", s.character)),
      el("td", { class: "seat-facts" }, facts.join(", ")),
      el("td", {}, s.dice ? dice(s.dice) : `≤${s.die_limit}`),
      el("td", { class: "seat-waiting" }, waiting));
  });
  return el("table", { class: "seats" }, el("tbody", {}, rows));
}

// The latest vote's ballots, from the public log: they exist only once the last ballot is
// in, which is how every screen shows them in the same instant.
export function lastVote(view) {
  const facts = view.log || [];
  const at = facts.map((f) => f.k).lastIndexOf("vote_revealed");
  if (at < 0) return null;
  const fact = facts[at];
  // Shown until a later command begins a new turn; the log keeps it after that.
  if (facts.slice(at).some((f) => f.k === "turn" && f.seq > fact.seq)) return null;
  // Shadow Corporation's votes give each colour another meaning: say the one it had.
  const meaning = (colour) => (fact.kind ? t(`game.option.vote.${fact.kind}.${colour}`)
                                         : label("ballot", colour));
  return el("section", { class: "ballots", id: "ballots" },
    el("h3", {}, fact.kind === "takeoff" ? t("phone.vote.revealed_takeoff")
                                         : t("phone.vote.revealed", { target: seatName(view, fact.target) })),
    el("ul", {}, Object.entries(fact.ballots).map(([seat, colour]) =>
      el("li", { "data-ballot": seat }, `${seatName(view, Number(seat))}: `,
         el("b", { class: `ballot ${colour}` }, meaning(colour))))));
}

function voteState(view) {
  const w = view.waiting;
  if (!w || w.decision !== "vote") return null;
  const kind = w.vote_kind || "quarantine";
  return el("section", { class: "vote-state", "data-kind": kind },
    el("h3", {}, kind === "quarantine" ? t("phone.vote.on", { target: seatName(view, w.target) })
                 : t(`game.question.vote.${kind}`, { target: seatName(view, w.target) })),
    el("p", {}, t("phone.vote.chosen", { chosen: w.chosen.length, voters: w.voters.length })));
}

// The open log holds public facts only until the game ends. A fact addressed to some seats
// (its "to": a roll, a drawn card, a status, a blood test) is private, and how many of those
// a seat has differs with its status: on a phone they sit behind "Your private notes".
export function isPrivate(fact) {
  return "to" in fact;
}

export function log(payload) {
  const facts = payload.view.log || [];
  const said = (payload.text && payload.text.log) || [];
  const lines = facts
    .map((fact, i) => [fact, said[i] || label("fact", fact.k)])
    .filter(([fact]) => payload.view.outcome || !isPrivate(fact))
    .map(([, line]) => line);
  return el("section", { class: "log" }, el("h3", {}, t("phone.log")),
    el("ul", {}, lines.reverse().slice(0, 40).map((line) => el("li", {}, line))));
}

// What a Status card holds stays out of the notes too: only the hold-to-peek card shows it,
// and only while a finger is on it.
const CARD_FACTS = new Set(["status_dealt", "infected_team"]);

// This seat's private facts, newest first, in the words the server sent with the view.
export function privateLines(payload) {
  const facts = payload.view.log || [];
  const said = (payload.text && payload.text.log) || [];
  return facts.map((fact, i) => [fact, said[i] || label("fact", fact.k)])
    .filter(([fact]) => isPrivate(fact) && !CARD_FACTS.has(fact.k))
    .map(([, line]) => line).reverse();
}

// The whole public board; `withLog` false where a page shows its log elsewhere; `fair`: a
// seat page's FairPhone, whose own lines join the fair section.
// The dice and their faces, for whoever forgets which colour is which (public facts, from
// /api/choices): set once by each page, shown closed under the board.
let faces = null;
let legendOpen = false;  // the board is redrawn on every change: the legend stays as left

export function setFaces(known) {
  faces = known || null;
}

function legend(view) {
  if (!faces) return null;
  // The yellow corporation dice only in a Shadow Corporation game (its view has the track).
  const colours = ["strong", "weak", "commander"].concat(view.evacuation ? ["corporation"] : []);
  return el("details", { class: "legend", id: "legend", open: legendOpen,
                         ontoggle: (event) => { legendOpen = event.target.open; } },
    el("summary", {}, t("phone.legend.title")),
    el("p", {}, t("phone.legend.hint")),
    colours.filter((c) => faces[c]).map((c) =>
      el("div", { class: "legend-row", "data-colour": c },
        el("span", { class: "legend-name" }, t(`phone.legend.${c}`)),
        el("span", { class: "rolled" }, faces[c].map((v) => face(c, v))))));
}

export function board(payload, { withLog = true, fair = null } = {}) {
  const view = payload.view;
  if (!view) {
    return el("section", { class: "board" }, el("p", { class: "banner" }, banner(payload)),
              fairLine(payload.room, fair));
  }
  return el("section", { class: "board", "data-state": view.state_id },
    el("p", { class: "banner", id: "banner" }, banner(payload)),
    voteState(view), lastVote(view), tracks(view), seats(view), abilities(view),
    withLog ? log(payload) : null, legend(view), fairLine(payload.room, fair));
}
