// A player's phone: claims its seat, keeps the Status card behind a hold-to-peek, shows the
// dice behind the screen, the roll in progress and the pending decision, and the public board.
import { call, chosenLang, el, has, label, langToggle, live, loadLang, t, toast,
         tokenFromPath, Refused } from "./common.js";
import { board, dice, seatName } from "./board-view.js";
import { decisionPanel } from "./decision.js";
import { alert as buzz, unlockSound } from "./buzz.js";

const token = tokenFromPath();
const api = `/api/seat/${encodeURIComponent(token)}`;
let payload = null;
let peeking = false;
let busy = false;
let myTurnBefore = false;
let picked = new Set();   // dice tapped for a submit; cleared when the roll changes
let pickedFor = "";
let stream = null;

const $ = (id) => document.getElementById(id);

function message(text, kind = "error") {
  $("message").replaceChildren(text ? el("p", { class: `message ${kind}` }, text) : "");
}

// --- the Status card: nothing of it is in the page unless a finger is on it ---

function statusContent(you) {
  const team = (you.infected_team || []).filter((s) => s !== you.seat);
  return [
    el("span", { class: "status-name" }, label("status", you.status)),
    has(`game.power.${you.status}`)
      ? el("span", { class: "status-power" }, t(`game.power.${you.status}`)) : null,
    team.length ? el("span", { class: "status-team" }, t("phone.infected_team", {
      names: team.map((s) => seatName(payload.view, s)).join(", ") })) : null,
  ];
}

function showPeek(on) {
  const you = payload && payload.view && payload.view.you;
  peeking = on && Boolean(you && you.status);
  $("peek").classList.toggle("open", peeking);
  $("peek-content").replaceChildren(...(peeking ? statusContent(you).filter(Boolean) : []));
}

function wirePeek() {
  const card = $("peek");
  const hide = () => showPeek(false);
  card.addEventListener("pointerdown", (event) => {
    unlockSound();
    card.setPointerCapture && card.setPointerCapture(event.pointerId);
    showPeek(true);
  });
  for (const name of ["pointerup", "pointercancel", "lostpointercapture", "blur"]) {
    card.addEventListener(name, hide);
  }
  card.addEventListener("keydown", (event) => {
    if (event.key === " " || event.key === "Enter") { event.preventDefault(); showPeek(true); }
  });
  card.addEventListener("keyup", hide);
  card.addEventListener("contextmenu", (event) => event.preventDefault());
  document.addEventListener("visibilitychange", hide);
}

// --- commands ---

async function send(option) {
  if (busy || !payload) return;
  const view = payload.view;
  busy = true;
  document.body.classList.add("busy");
  try {
    await call("POST", `${api}/command`, {
      decision: view.you.decision.decision, option, state_id: view.state_id });
  } catch (error) {
    if (error.code === "stale_state") stream.refresh();  // the view moved on: show it
    else toast(error.message, "error");
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

function notice(data) {
  if (!data.refusal) return;
  const { code, message: why, button } = data.refusal;
  const reason = has(`phone.refusal.${code}`) ? t(`phone.refusal.${code}`) : why;
  toast(t("phone.refusal.button", { button: t(`phone.button.${button}`), reason }), "refusal");
  buzz();
}

// --- drawing ---

function lobby(view) {
  const seats = view.lobby.seats;
  return el("section", { class: "lobby" },
    el("p", {}, t("phone.lobby.waiting")),
    el("ul", {}, seats.map((s) => el("li", { class: s.claimed || s.bot ? "joined" : "" },
      s.name, " — ", t(s.claimed ? "phone.lobby.joined" : s.bot ? "phone.lobby.bot"
                                                                  : "phone.lobby.not_joined")))));
}

function privatePanel(payload) {
  const view = payload.view;
  const you = view.you;
  const parts = [];
  if (view.outcome) {
    parts.push(el("section", { class: "status-open" }, statusContent(you)));
  }
  parts.push(el("section", { class: "my-dice" },
    el("h2", {}, t("phone.your_dice")), dice(you.dice),
    el("span", { class: "limit" }, t("phone.die_limit", { limit: you.die_limit }))));
  const decision = you.decision;
  const rollKey = JSON.stringify([view.state_id, you.rolled]);
  if (rollKey !== pickedFor) { picked = new Set(); pickedFor = rollKey; }
  if (you.rolled.length && !(decision && decision.decision === "submit")) {
    parts.push(el("section", { class: "rolled-view" }, el("h2", {}, t("phone.your_roll")),
      el("div", { class: "rolled" }, you.rolled.map(([c, v]) =>
        el("span", { class: `die ${c}` }, v > 0 ? `+${v}` : String(v))))));
  }
  const hand = you.tasks_in_hand.length ? ["task", you.tasks_in_hand]
    : you.events_in_hand.length ? ["event", you.events_in_hand] : null;
  if (hand) {
    parts.push(el("section", { class: "hand" }, el("h2", {}, t("phone.in_hand")),
      el("ul", {}, hand[1].map((card) => el("li", {}, label(hand[0], card))))));
  }
  if (decision && (decision.options.length || decision.chosen)) {
    parts.push(decisionPanel(decision, payload, send, picked));
  } else if (!view.outcome) {
    parts.push(el("p", { class: "idle" }, t("phone.not_your_turn")));
  }
  return parts;
}

function render() {
  if (!payload) return;
  const view = payload.view;
  const room = payload.room;
  const seat = view && view.you ? view.you.seat : null;
  const name = room.seats[seat] ? room.seats[seat].name : "";
  $("who").textContent = name || "Dark Moon";
  document.title = `${name} · Dark Moon`;
  $("mine").hidden = false;
  // Which state the page shows, for anyone checking that the page caught up (tests, support).
  document.body.dataset.state = view && view.state_id !== undefined ? view.state_id : "lobby";
  if (!view || view.lobby) {
    $("peek").hidden = true;
    $("private").replaceChildren(lobby(view || { lobby: room }));
    $("public").replaceChildren();
    return;
  }
  $("peek").hidden = Boolean(view.outcome);
  if (peeking) showPeek(true);
  $("private").replaceChildren(...privatePanel(payload));
  $("public").replaceChildren(board(payload));
  const myTurn = Boolean(view.you.decision && view.you.decision.options.length);
  if (myTurn && !myTurnBefore) buzz();
  myTurnBefore = myTurn;
}

function failed(error) {
  if (!(error instanceof Refused)) return;
  const known = ["seat_claimed", "not_your_seat", "unknown_token"];
  message(known.includes(error.code) ? t(`phone.error.${error.code}`) : error.message);
  if (known.includes(error.code)) $("mine").hidden = true;
}

async function main() {
  await loadLang(chosenLang());
  $("lang").append(langToggle(() => { render(); stream && stream.reopen(); }));
  wirePeek();
  try {
    await call("POST", `${api}/claim`);
  } catch (error) {
    failed(error);
    return;
  }
  message("");
  stream = live({
    getUrl: api, eventsUrl: `${api}/events`,
    onView: (data) => { message(""); payload = data; render(); },
    onNotice: notice, onError: failed,
  });
}

main();
