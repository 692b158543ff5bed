// A player's phone: claims its seat, keeps the Status card behind a hold-to-peek, shows the
// dice behind the screen, the roll in progress and the pending decision, and the public board.
//
// Nothing to a glance: outside the Status card, an Infected and an Uninfected seat's page are
// the same at every moment. What differs (the status, the real reveal, the private notes)
// is shown only on a deliberate hold or tap, closes again by itself, and an idle phone
// hides every private detail behind a veil (glance.js).
import { call, chosenLang, el, has, label, langToggle, live, loadLang, pageCode, t, toast,
         Refused } from "./common.js";
import { board, cardText, dice, privateLines, seatName, setFaces } from "./board-view.js";
import { asksReveal } from "./action-list.js";
import { decisionPanel, showsDice } from "./decision.js";
import { autoClose, delaysFromAddress, idleVeil } from "./glance.js";
import { alert as buzz, unlockSound } from "./buzz.js";
import { keepAwake } from "./awake.js";
import { fairLine } from "./fair-line.js";
import { FairPhone } from "./fair-phone.js";
import { veilPanel } from "./veil-panel.js";
import { hostDrawer } from "./host-panel.js";

// The seat's code, from the address after "#": everything this page says to the Pi is sealed.
const code = pageCode();
let payload = null;
let card = "closed";  // "held": a finger is on it; "open": opened by "Reveal yourself…"
let cardFor = null;   // the state the card was opened in
let notesOpen = false;
let veiled = false;
let glance = null;
let busy = false;
let myTurnBefore = false;
let shownDecision = "";  // the decision last brought into view
let picked = new Set();   // dice tapped for a submit; cleared when the roll changes
let pickedFor = "";
let stream = null;
// This phone's part in the fair deal: its kept bytes, their pledge and reveal, its own check.
const fair = new FairPhone(code, () => render());

const $ = (id) => document.getElementById(id);

function message(text, kind = "error") {
  $("message").replaceChildren(text ? el("p", { class: `message ${kind}` }, text) : "");
}

// --- the Status card: nothing of it is in the page unless a finger is on it ---

function statusContent(you) {
  const team = (you.infected_team || []).filter((s) => s !== you.seat);
  return [
    el("span", { class: "status-name" }, label("status", you.status)),
    // What the card does (and the infection power): part of the card, so held only.
    has(`game.text.status.${you.status}`)
      ? el("span", { class: "status-power" }, t(`game.text.status.${you.status}`)) : null,
    team.length ? el("span", { class: "status-team" }, t("phone.infected_team", {
      names: team.map((s) => seatName(payload.view, s)).join(", ") })) : null,
    // The Threats module's card lies face down beside the Status card: held only, as it.
    you.threat ? el("span", { class: "status-threat" },
      t("phone.threat.card", { threat: label("threat", you.threat) }), " ",
      t(`game.text.threat.${you.threat}`)) : null,
  ];
}

// The reveal, inside the card: the real option for a seat the rules offer it to, "nothing to
// reveal" for any other. Both close the card again.
function revealChoice(you) {
  const decision = you.decision;
  const reveal = decision && decision.options.find((option) => option[0] === "reveal");
  const close = el("button", { type: "button", id: "card-close", onclick: () => setCard("closed") },
                   t("phone.reveal.close"));
  if (!reveal) {
    return [el("p", { id: "reveal-nothing", class: "reveal-nothing" }, t("phone.reveal.nothing")),
            close];
  }
  return [el("p", { class: "reveal-warning" }, t("phone.reveal.warning")),
          el("button", { type: "button", id: "reveal-confirm", class: "danger",
                         onclick: () => { setCard("closed"); send(reveal); } },
             t("phone.reveal.confirm")),
          close];
}

function drawCard() {
  const you = payload && payload.view && payload.view.you;
  const open = card !== "closed" && Boolean(you && you.status);
  $("peek").classList.toggle("open", open);
  $("peek-content").replaceChildren(...(open ? statusContent(you).filter(Boolean) : []));
  const box = $("reveal-box");
  box.hidden = !(open && card === "open");
  box.replaceChildren(...(box.hidden ? [] : revealChoice(you)));
}

const cardShut = autoClose(() => setCard("closed"));

function setCard(state) {
  card = state;
  cardFor = payload && payload.view ? payload.view.state_id : null;
  if (state === "open") cardShut.arm();
  else cardShut.cancel();
  drawCard();
}

function wirePeek() {
  const peek = $("peek");
  const hide = () => setCard("closed");
  peek.addEventListener("pointerdown", (event) => {
    unlockSound();
    peek.setPointerCapture && peek.setPointerCapture(event.pointerId);
    setCard("held");
  });
  for (const name of ["pointerup", "pointercancel", "lostpointercapture", "blur"]) {
    peek.addEventListener(name, () => card === "held" && hide());
  }
  peek.addEventListener("keydown", (event) => {
    if (event.key === " " || event.key === "Enter") { event.preventDefault(); setCard("held"); }
  });
  peek.addEventListener("keyup", () => card === "held" && hide());
  peek.addEventListener("contextmenu", (event) => event.preventDefault());
  document.addEventListener("visibilitychange", hide);
}

// --- the private notes: this seat's own rolls, cards and test results, on a tap ---

const notesShut = autoClose(() => setNotes(false));

function setNotes(open) {
  notesOpen = open;
  if (open) notesShut.arm();
  else notesShut.cancel();
  render();
}

// The same button, with no count, whatever the notes hold; opened, it lists them.
function notesPanel(payload) {
  const parts = [el("button", { type: "button", id: "notes-toggle", class: "notes-toggle",
                                "aria-expanded": String(notesOpen),
                                onclick: () => setNotes(!notesOpen) }, t("phone.notes.title"))];
  if (notesOpen) {
    const lines = privateLines(payload);
    parts.push(el("div", { id: "notes", class: "notes-open" },
      lines.length ? el("ul", {}, lines.map((line) => el("li", {}, line)))
                   : el("p", {}, t("phone.notes.none")),
      el("p", { class: "hint" }, t("phone.notes.closes"))));
  }
  return el("section", { class: "notes" }, parts);
}

// --- the veil over an idle phone (veil-panel.js shows what it holds) ---

function setVeil(on) {
  if (on === veiled) return;
  veiled = on;
  if (on) {
    setCard("closed");
    notesOpen = false;
    notesShut.cancel();
  }
  render();
}

// --- commands ---

async function send(option) {
  if (busy || !payload) return;
  const view = payload.view;
  busy = true;
  document.body.classList.add("busy");
  try {
    await code.call("command", {
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

function lobby(view, seat) {
  const seats = view.lobby.seats;
  const mine = seats[seat];
  // A wrong seat tapped is not final: until the game starts this phone gives the seat back
  // (its code stays the same, so nobody scans again) and picks again from the seat list.
  // Tapping its own seat there again undoes a mistaken leave: one tap, no confirmation.
  const leave = async (event) => {
    event.currentTarget.disabled = true;
    document.body.dataset.leaving = "yes";  // the seat's stream ends now: no error for it
    try {
      const left = await code.call("leave");
      location.replace(`/j?left=${left.seat + 1}#${encodeURIComponent(left.table)}`);
    } catch (error) {
      delete document.body.dataset.leaving;
      event.target.disabled = false;
      toast(has(`phone.error.${error.code}`) ? t(`phone.error.${error.code}`) : error.message,
            "error");
    }
  };
  return el("section", { class: "lobby" },
    mine ? el("p", { id: "lobby-you" }, t("phone.lobby.you", { n: seat + 1, name: mine.name }))
      : null,
    el("p", { id: "lobby-state" }, t(seats.every((s) => s.claimed || s.bot)
      ? "phone.lobby.everyone" : "phone.lobby.waiting")),
    el("ul", {}, seats.map((s) => el("li", { class: s.claimed || s.bot ? "joined" : "" },
      s.name, " — ", t(s.claimed ? "phone.lobby.joined" : s.bot ? "phone.lobby.bot"
                                                                  : "phone.lobby.not_joined")))),
    mine ? el("button", { type: "button", id: "leave", onclick: leave },
              t("phone.lobby.leave", { name: mine.name })) : null,
    mine ? el("p", { class: "hint", id: "leave-hint" }, t("phone.lobby.leave_hint")) : null,
    fairLine(view.lobby, fair));
}

// The side a Status card plays for: the Company Man plays for no team but their own.
function won(status, outcome) {
  const side = status === "uninfected" || status === "company_man" ? status : "infected";
  return side === outcome.winner;
}

function privatePanel(payload) {
  const view = payload.view;
  const you = view.you;
  const parts = [];
  if (view.outcome) {
    // First what the game means for this player, then the card that decided it.
    parts.push(el("p", { class: `result ${won(you.status, view.outcome) ? "won" : "lost"}`,
                         id: "result" },
                  t(won(you.status, view.outcome) ? "phone.result.won" : "phone.result.lost")));
    parts.push(el("section", { class: "status-open" }, statusContent(you)));
  }
  const decision = you.decision;
  // A decision that shows the dice beside its choices has them there, not twice.
  if (!(decision && showsDice(decision))) {
    parts.push(el("section", { class: "my-dice" },
      el("h2", {}, t("phone.your_dice")), dice(you.dice),
      el("span", { class: "limit" }, t("phone.die_limit", { limit: you.die_limit }))));
  }
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
      el("ul", {}, hand[1].map((card) => el("li", {}, label(hand[0], card),
        el("small", { class: "card-says" }, cardText(hand[0], card)))))));
  }
  if (decision && (decision.options.length || decision.chosen)) {
    parts.push(decisionPanel(decision, payload, send, picked, () => setCard("open"),
                             { refuse: (why) => toast(why, "refusal") }));
  } else if (!view.outcome) {
    parts.push(el("p", { class: "idle" }, t("phone.not_your_turn")));
  }
  parts.push(notesPanel(payload));
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
  // The screen stays on from the first tap until the game is over (awake.js).
  keepAwake(!(view && view.outcome));
  if (!view || view.lobby) {
    $("card").hidden = true;
    $("private").replaceChildren(lobby(view || { lobby: room }, seat));
    $("public").replaceChildren();
    return;
  }
  const decision = view.you.decision;
  // Answered (a ballot cast, which may still be changed) is not this seat's turn any more.
  const myTurn = Boolean(decision && decision.options.length && !decision.chosen);
  const newTurn = myTurn && !myTurnBefore;
  if (newTurn) turnSignal();
  myTurnBefore = myTurn;
  // The reveal's card belongs to one action choice: it closes once the game moves on.
  if (card === "open" && (cardFor !== view.state_id || !(decision && asksReveal(decision, view)))) {
    setCard("closed");
  }
  const hide = veiled && !view.outcome;  // after the game nothing is secret any more
  document.body.classList.toggle("veiled", hide);
  $("card").hidden = hide || Boolean(view.outcome);
  drawCard();
  $("private").replaceChildren(...(hide ? veilPanel(payload, {
    send, lift: () => glance.lift(), openCard: () => setCard("open") }) : privatePanel(payload)));
  $("public").replaceChildren(hide ? "" : board(payload, { fair }));
  // A decision that arrives, or follows another, comes into view whole when it is not:
  // centred, or from its question down when it is taller than the screen (a phone on its
  // side). Its question, context and choices then need no scrolling.
  const asked = $("decision");
  const signature = asked ? JSON.stringify([hide, decision]) : "";
  if (asked && signature !== shownDecision) {
    const box = asked.getBoundingClientRect();
    if (box.top < 0 || box.bottom > innerHeight) {
      asked.scrollIntoView({ block: asked.offsetHeight > innerHeight ? "start" : "center" });
    }
  }
  shownDecision = signature;
}

// The turn signal: vibration and a beep (buzz.js), and a flash of the whole page for the
// phones that do neither (an iPhone never vibrates; its beep needs a first touch).
function turnSignal() {
  buzz();
  document.body.classList.remove("turn-flash");
  void document.body.offsetWidth;  // restart the animation if the last one is still on
  document.body.classList.add("turn-flash");
  setTimeout(() => document.body.classList.remove("turn-flash"), 1500);
}

function failed(error) {
  if (!(error instanceof Refused) || document.body.dataset.leaving) return;
  const known = ["seat_claimed", "not_your_seat", "unknown_token", "bot_seat", "seat_given_away"];
  if (!known.includes(error.code)) {
    message(error.message);
    return;
  }
  // Not this phone's seat (any more): no player's name over the message, nothing of theirs.
  $("mine").hidden = true;
  $("who").textContent = "Dark Moon";
  document.title = "Dark Moon";
  $("public").replaceChildren();
  // Opened from the table code's seat list: a way back to it, to tap another seat. (No page
  // sends a referrer, and the table code would not be in one: the list left it, and the seat
  // tapped, in this tab's own sessionStorage.)
  let list = null;
  try {
    const table = sessionStorage.getItem("dm_table");
    if (table && sessionStorage.getItem("dm_tapped") === code.token) {
      list = `/j#${encodeURIComponent(table)}`;
    }
  } catch (nothing) { /* opened from a seat's own code: no list to go back to */ }
  const say = (key) => {
    message(t(key));
    if (list) {
      $("message").append(el("p", {}, el("a", { class: "button", id: "back-to-seats", href: list },
                                             t("phone.join.back"))));
    }
  };
  say(`phone.error.${error.code}`);
  if (error.code === "seat_claimed") {
    // Before the game starts, a phone that took this seat by mistake can give it back itself.
    call("GET", "/api/board").then((board) => {
      if (board.room.phase === "join") say("phone.error.seat_claimed_lobby");
    }, () => {});
  }
}

async function main() {
  delaysFromAddress();
  await loadLang(chosenLang());
  $("lang").append(langToggle(() => { render(); stream && stream.reopen(); }));
  wirePeek();
  glance = idleVeil(setVeil);
  try {
    await fair.claim();  // its bytes kept and pledged before anything else
  } catch (error) {
    failed(error);
    return;
  }
  message("");
  hostDrawer(code);  // the host who plays: the host's controls on this page too
  call("GET", "/api/choices").then((known) => { setFaces(known.faces); render(); },
                                   () => {});  // the legend is a help, never a failure
  stream = live({
    code,
    onView: (data) => {
      message(""); payload = data; fair.onView(data); render();
    },
    onNotice: notice, onError: failed,
  });
}

main();
