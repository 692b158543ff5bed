// The seat's pending decision, built so that it costs no more taps than the physical act and
// fits a phone's screen with its question, its context and every choice:
//
// - IN/OUT and the ballots are big buttons coloured like the seat buttons, naming them;
// - the action list groups the choices that differ only by player and collapses the blocked
//   ones to one line per kind and reason (action-list.js);
// - dice are chosen as dice (dice-pickers.js): a roll's dice one tap each, and the dice to
//   roll, take or discard with a count per colour and one button.
//
// Under the veil (glance.js) the kinds of decision whose question and choices are the same for
// every seat asked (IN/OUT, a ballot, the action list) are shown too, answered with one tap:
// only what differs by a secret is left out. The seat's dice decide which ballots it may cast
// and which actions it may take, so there every choice looks open; a tap on one the seat
// cannot take lifts the veil and says why instead of sending it.
import { el, t, label } from "./common.js";
import { dice } from "./board-view.js";
import { actionChoices, blockedList } from "./action-list.js";
import { countPicker, submitPicker } from "./dice-pickers.js";
import { ballotLabel, legalIn, optionLabel, same } from "./option-words.js";

// Decisions the veil may show: the same question and choices whatever the seat's secrets.
export const OPEN_KINDS = new Set(["participation", "vote", "action"]);
const BALLOTS = ["strong", "weak", "abstain"];
// The seat button each choice is pressed with (README "Seat buttons").
const BUTTON = { in: "black", out: "red", strong: "black", weak: "red", abstain: "grey" };
// Decisions whose options name dice by a count per colour, and the word each option starts with.
const COUNTED = { roll_dice: "roll", take_dice: "take", discard: "discard" };

// A choice pressed on a seat button: its colour, and the button's name under its words.
function colouredChoice(option, words, { chosen, onclick, disabled, note }) {
  const colour = BUTTON[option[0]];
  return el("button", { type: "button", class: `option seat-choice ${colour}${chosen ? " chosen" : ""}`,
                        "data-option": JSON.stringify(option), "data-button": colour,
                        "aria-pressed": chosen === undefined ? null : String(Boolean(chosen)),
                        disabled, onclick },
    el("span", { class: "choice-words" }, words),
    note === "" ? null : el("span", { class: "choice-button" }, note || t("phone.seat_button", {
      button: t(`phone.button.${colour}`) })));
}

// IN or OUT, both always in the same place. A seat with no dice may only go OUT: unveiled,
// IN is greyed with why; veiled (the dice are a secret), a tap on IN lifts the veil and says so.
function participationChoices(decision, veiled, send, refuse) {
  return ["in", "out"].map((head) => {
    const legal = legalIn(decision, [head]);
    return colouredChoice([head], t(`game.option.participation.${head}`), {
      disabled: !veiled && !legal,
      note: !veiled && !legal ? t("phone.no_dice") : null,
      onclick: () => (legal ? send([head]) : refuse(t("phone.in_without_dice"))),
    });
  });
}

// The three ballots, always all three in the same place: which ones a seat may cast depends
// on its dice. Unveiled, one it cannot cast is greyed with why; veiled, a tap on it lifts the
// veil and says why. A cast ballot is marked and may be changed until the last one is in.
function ballotChoices(decision, veiled, send, refuse) {
  const data = decision.data || {};
  const chosen = decision.chosen;
  return BALLOTS.map((colour) => {
    const option = [colour];
    const legal = legalIn(decision, option);
    const lacking = t(`phone.vote.no_${colour}`);
    const mine = Boolean(chosen && !veiled && chosen[0] === colour);
    // The ballot's words name its seat button already ("Free (strong die, BLACK)").
    return colouredChoice(option, ballotLabel(colour, data), {
      chosen: chosen ? mine : undefined,
      disabled: !veiled && !legal,
      note: !veiled && !legal ? lacking : "",
      onclick: () => {
        if (mine) return;
        if (legal) send(option);
        else refuse(lacking);
      },
    });
  });
}

// The decisions that show the seat's dice beside their choices (IN/OUT, a ballot to cast).
export function showsDice(decision) {
  return ["participation", "vote"].includes(decision.decision)
    && (decision.options.length > 0 || Boolean(decision.chosen));
}

// What the choice is about, beside it: the task under way and the seat's own dice (never
// under the veil: the dice are the seat's secret).
function context(decision, view, veiled) {
  const kind = decision.decision;
  const parts = [];
  const task = view.task;
  if (task && ["participation", "roll_dice", "submit", "continue", "corporation"].includes(kind)) {
    const progress = task.difficulty !== null && task.difficulty !== undefined;
    parts.push(el("p", { class: "context-task", id: kind === "continue" ? "task-progress" : "context-task" },
      kind === "continue" ? null : el("b", {}, label("task", task.card), progress ? " · " : ""),
      progress ? t("phone.task.progress", { total: task.success_total,
                                            difficulty: task.difficulty }) : ""));
  }
  if (!veiled && showsDice(decision)) {
    parts.push(el("p", { class: "context-dice", id: "context-dice" },
      el("span", {}, t("phone.your_dice")), " ", dice(view.you.dice)));
  }
  return parts.length ? el("div", { class: "context" }, parts) : null;
}

// The seat's decision panel. `veiled`: drawn on the veil (OPEN_KINDS only); `refuse(why)`:
// what a tap on a choice the seat cannot take does (lift the veil, say why).
export function decisionPanel(decision, payload, send, picked, onReveal,
                              { veiled = false, refuse = () => {} } = {}) {
  const view = payload.view;
  const text = payload.text || {};
  const sentences = text.options || [];
  const reasons = text.blocked || [];
  const kind = decision.decision;
  const title = text.decision || label("decision", kind);
  const answered = Boolean(decision.chosen);
  const parts = [];
  if (veiled && !answered) parts.push(el("p", { class: "your-turn" }, t("phone.your_turn")));
  parts.push(el("h2", { class: "question" }, title));
  parts.push(context(decision, view, veiled));
  if (answered) {
    const words = kind === "vote" ? ballotLabel(decision.chosen[0], decision.data)
      : sentences[decision.options.findIndex((o) => same(o, decision.chosen))]
        || optionLabel(decision.chosen, view);
    // A ballot cast can be changed until the last is in (the server keeps its options).
    const changeable = kind === "vote";
    // Under the veil the ballot cast stays in the fist: only that one was cast.
    parts.push(el("p", { class: "own-choice", id: "own-choice" },
      veiled ? t("phone.vote.cast_veiled")
      : changeable ? t("phone.vote.yours_change", { ballot: words })
      : t("phone.chosen", { choice: words })));
    if (veiled || !changeable) {
      return el("section", { class: "decision", id: "decision", "data-decision": kind,
                             "data-veiled": veiled ? "" : null }, parts);
    }
  }
  if (kind === "participation") {
    parts.push(el("div", { class: "options seat-choices" },
                  participationChoices(decision, veiled, send, refuse)));
  } else if (kind === "vote") {
    parts.push(el("div", { class: "options seat-choices" },
                  ballotChoices(decision, veiled, send, refuse)));
  } else if (kind === "action") {
    parts.push(...actionChoices(decision, view, sentences, reasons, send, veiled, refuse, onReveal));
  } else if (COUNTED[kind] && decision.options.length
             && decision.options.every((o) => o[0] === COUNTED[kind])) {
    parts.push(countPicker(decision, send, JSON.stringify([view.state_id, decision.options])),
               blockedList(decision, view, reasons));
  } else {
    if (kind === "submit" && view.you.rolled.length) {
      parts.push(submitPicker(decision, view, send, picked));
    }
    // A roll's dice are picked above; the corporation dice (Shadow Corporation) are one
    // button each: "Show -1 corporation".
    const picking = kind === "submit";
    const buttons = decision.options.map((option, i) => ((picking && option[0] === "submit")
      ? null
      : el("button", { type: "button", class: "option", "data-option": JSON.stringify(option),
                       onclick: () => send(option) },
           sentences[i] || optionLabel(option, view)))).filter(Boolean);
    parts.push(el("div", { class: "options" }, buttons), blockedList(decision, view, reasons));
  }
  return el("section", { class: "decision", id: "decision", "data-decision": kind,
                         "data-veiled": veiled ? "" : null }, parts);
}
