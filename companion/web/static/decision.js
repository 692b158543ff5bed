// The seat's pending decision, built so that it costs no more taps than the physical act and
// fits a phone's screen with its question, its context and every choice:
//
// - IN/OUT and the ballots are big buttons coloured like the seat buttons, naming them;
// - the action list groups the choices that differ only by player ("Call a vote on" with one
//   button per player) and collapses the blocked ones to one line per kind and reason;
// - the dice to roll are chosen as dice (one stepper per colour and one Roll button), and a
//   roll with one die to submit submits it on a tap.
//
// The rules offer "reveal" to Infected seats only, so a plain list would tell a glancing
// neighbour the seat's status. Every seat that has not revealed gets the same
// "Reveal yourself…" button in the same place instead; it opens the Status card, which holds
// the real option (or says there is nothing to reveal).
//
// Under the veil (glance.js) the kinds of decision whose question and choices are the same for
// every seat asked (IN/OUT, a ballot, the action list) are shown too, answered with one tap:
// only what differs by a secret is left out. The seat's dice decide which ballots it may cast
// and which actions it may take, so there every choice looks open; a tap on one the seat
// cannot take lifts the veil and says why instead of sending it.
import { el, has, t, label } from "./common.js";
import { dice, face, seatName } from "./board-view.js";

const SEAT_OPTIONS = new Set(["vote", "order", "player", "target"]);
const COUNT_OPTIONS = new Set(["roll", "discard", "take"]);
const CARD_OPTIONS = { task: "task", event: "event" };
const COLOURS = ["strong", "weak", "commander"];

// Decisions the veil may show: the same question and choices whatever the seat's secrets.
export const OPEN_KINDS = new Set(["participation", "vote", "action"]);
const BALLOTS = ["strong", "weak", "abstain"];
// The seat button each choice is pressed with (README "Seat buttons").
const BUTTON = { in: "black", out: "red", strong: "black", weak: "red", abstain: "grey" };
// Blocked actions whose reason is the dice the seat holds: a secret the veil keeps.
const DICE_REASONS = new Set(["no_dice", "needs_two_dice", "weak_dice_only",
                              "costly_actions_no_die"]);
// Where each kind of action sits in the list, whether it is open or blocked: the list keeps
// its shape whatever the seat holds.
const ACTION_ORDER = ["repair", "lone_wolf", "test_commander", "vote", "amputate", "clearance",
                      "takeoff", "order", "expose", "interference", "energy_spike", "sabotage",
                      "demoralize"];

// Used only when the server sent no sentence for an option.
export function optionLabel(option, view) {
  const [kind, ...rest] = option;
  const head = label("option", kind);
  if (SEAT_OPTIONS.has(kind)) return `${head} ${seatName(view, rest[0])}`;
  if (COUNT_OPTIONS.has(kind)) {
    return `${head} ` + COLOURS.slice(0, rest.length)
      .map((c, i) => `${rest[i]} ${t(`phone.die.${c}`)}`).join(", ");
  }
  if (kind in CARD_OPTIONS) return label(CARD_OPTIONS[kind], rest[0]);
  if (kind === "submit") {
    const rolled = view.you.rolled;
    return `${head} ` + rest.map((i) => (rolled[i] ? rolled[i][1] : "?")).join(" ");
  }
  if (kind === "keep") return `${head} ` + rest.map((c) => label("task", c)).join(", ");
  return [head, ...rest.map((part) => label("token", part))].join(" ");
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const legalIn = (decision, option) => decision.options.some((o) => same(o, option));

// A ballot in the words of the vote being held (Shadow Corporation's votes mean other things).
export function ballotLabel(colour, data) {
  const kind = data && data.kind;
  return kind && has(`game.option.vote.${kind}.${colour}`)
    ? t(`game.option.vote.${kind}.${colour}`) : t(`game.option.vote.${colour}`);
}

function seatTarget(option) {
  return option.length === 2 && Number.isInteger(option[1]) ? option[1] : null;
}

// An action in the catalogue's words, worked out here so that it reads the same whether the
// action is open or blocked by the seat's dice (the server words only the open ones plainly).
function actionLabel(option, view, sentence) {
  const words = option.filter((part) => !Number.isInteger(part));
  const key = `game.option.action.${words.join(".")}`;
  const target = seatTarget(option);
  if (has(key)) return t(key, { target: target === null ? "" : seatName(view, target) });
  return sentence || optionLabel(option, view);
}

export function reasonText(why) {
  if (why.startsWith("blocked_by:")) {
    return t("game.reason.blocked_by", { token: label("token", why.split(":")[1]) });
  }
  return label("reason", why);
}

// The legal ["submit", ...] option holding exactly the picked dice. Identical dice make one
// option, not several, so the match is by colour and face, not by index.
export function submitFor(picked, rolled, options) {
  const key = (idx) => idx.map((i) => rolled[i].join(":")).sort().join(",");
  const wanted = key([...picked]);
  return options.find((o) => o[0] === "submit" && o.length - 1 === picked.size
                                && key(o.slice(1)) === wanted) || null;
}

// --- submitting a roll: tap dice; with one die to submit, the tap submits it ---

function dicePicker(decision, view, send, picked) {
  const rolled = view.you.rolled;
  const submitOptions = decision.options.filter((o) => o[0] === "submit");
  const sizes = submitOptions.map((o) => o.length - 1);
  const most = Math.max(...sizes);
  const least = Math.min(...sizes);
  const me = view.seats[view.you.seat];
  const tired = me.fatigued || me.revealed;
  // With one die to submit the tap is the choice: no second button to press.
  const oneTap = most === 1;
  const button = el("button", { type: "button", class: "primary option", id: "submit-dice" });
  const why = el("p", { class: "why", id: "submit-why" });
  const hint = el("p", { class: "pick-hint", id: "pick-hint" });
  // Why the picked dice cannot go: from the sizes offered and public facts only (a fatigued
  // or revealed seat submits one die), so it reads the same whatever the seat's status.
  function reason() {
    if (picked.size > most) return t("phone.submit.at_most", { count: most });
    if (picked.size < least) return t("phone.submit.at_least", { count: least });
    return t("phone.submit.not_these");
  }
  function update() {
    const option = submitFor(picked, rolled, submitOptions);
    button.hidden = oneTap || picked.size === 0;
    button.disabled = option === null;
    button.textContent = t(picked.size === 1 ? "phone.submit_die" : "phone.submit_dice",
                           { count: picked.size });
    if (option) button.dataset.option = JSON.stringify(option);
    else delete button.dataset.option;
    button.onclick = () => option && send(option);
    why.textContent = option === null && picked.size ? reason() : "";
    hint.hidden = !button.hidden;
    for (const node of chips.querySelectorAll(".die")) {
      const on = picked.has(Number(node.dataset.index));
      node.classList.toggle("picked", on);
      node.setAttribute("aria-pressed", String(on));
    }
  }
  function tapped(i) {
    if (oneTap) {
      picked.clear();
      picked.add(i);
      update();
      const option = submitFor(picked, rolled, submitOptions);
      if (option) send(option);
      return;
    }
    picked.has(i) ? picked.delete(i) : picked.add(i);
    update();
  }
  hint.textContent = oneTap
    ? t(tired ? "phone.pick.one_fatigued" : "phone.pick.one")
    : t("phone.pick.some", { least, most });
  const chips = el("div", { class: "rolled", id: "rolled" }, rolled.map(([colour, value], i) =>
    face(colour, value, {
      role: "button", tabindex: "0", "data-index": i, "data-colour": colour, "data-face": value,
      "aria-label": t("phone.die.face", { colour: t(`phone.die.${colour}`),
                                          face: value > 0 ? `+${value}` : String(value) }),
      onclick: () => tapped(i),
      onkeydown: (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); tapped(i); }
      },
    })));
  update();
  return el("div", { class: "picker", "data-one-tap": oneTap ? "" : null }, hint, chips, button, why);
}

// --- the dice to roll, chosen as dice ---

// The common roll is the most dice the seat may roll, the strong ones first: preset, so that
// it is one tap on Roll.
function presetRoll(options) {
  const score = (o) => [o.slice(1).reduce((a, b) => a + b, 0), o[1] || 0, o[3] || 0];
  return [...options].sort((a, b) => {
    const [x, y] = [score(a), score(b)];
    return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
  })[0];
}

const rollChoices = new Map();  // the counts being set, kept across redraws of one decision

function rollPicker(decision, view, send, key) {
  const options = decision.options.filter((o) => o[0] === "roll");
  const width = Math.max(...options.map((o) => o.length - 1));
  const counts = rollChoices.get(key) || presetRoll(options).slice(1);
  rollChoices.clear();
  rollChoices.set(key, counts);
  const highest = COLOURS.slice(0, width).map((_, i) => Math.max(...options.map((o) => o[i + 1])));
  const button = el("button", { type: "button", class: "primary option roll", id: "roll-dice" });
  const why = el("p", { class: "why", id: "roll-why" });
  const rows = [];
  const match = () => options.find((o) => same(o.slice(1), counts)) || null;
  function update() {
    const option = match();
    button.disabled = option === null;
    if (option) button.dataset.option = JSON.stringify(option);
    else delete button.dataset.option;
    const total = counts.reduce((a, b) => a + b, 0);
    button.textContent = total ? t("phone.roll.go", { dice: COLOURS.slice(0, width)
      .map((c, i) => (counts[i] ? `${counts[i]} ${t(`phone.die.${c}`)}` : null))
      .filter(Boolean).join(", ") }) : t("phone.roll.none");
    why.textContent = option ? "" : t("phone.roll.not_these");
    for (const row of rows) row.update();
  }
  button.onclick = () => { const option = match(); if (option) send(option); };
  COLOURS.slice(0, width).forEach((colour, i) => {
    if (!highest[i]) return;  // a colour the seat may not roll: no row for it
    const value = el("span", { class: `die-count ${colour}`, "data-count": colour });
    const less = el("button", { type: "button", class: "step", "data-step": `${colour}-`,
                                "aria-label": t("phone.roll.less", { colour: t(`phone.die.${colour}`) }),
                                onclick: () => { counts[i] -= 1; update(); } }, "−");
    const more = el("button", { type: "button", class: "step", "data-step": `${colour}+`,
                                "aria-label": t("phone.roll.more", { colour: t(`phone.die.${colour}`) }),
                                onclick: () => { counts[i] += 1; update(); } }, "+");
    const row = el("div", { class: "roll-row", "data-colour": colour },
      el("span", { class: "roll-name" }, t(`phone.legend.${colour}`)), less, value, more);
    row.update = () => {
      value.textContent = String(counts[i]);
      less.disabled = counts[i] <= 0;
      more.disabled = counts[i] >= highest[i];
    };
    rows.push(row);
  });
  update();
  return el("div", { class: "roll-picker", id: "roll-picker" }, rows, button, why);
}

// Whether this decision shows the "Reveal yourself…" button: the seat's own action choice,
// before it has revealed. Only public facts decide it, so it is the same for every status.
export function asksReveal(decision, view) {
  const me = view.seats && view.seats[view.you.seat];
  return decision.decision === "action" && decision.options.length > 0
    && Boolean(me) && !me.revealed;
}

// Safe Orders blocks the reveal for an ordered player: derived from the decision's public
// data and the variants, never from whether the rules offered it, so both statuses agree.
function revealButton(decision, view, onReveal) {
  const blocked = Boolean(decision.data && decision.data.ordered)
    && (view.variants || []).includes("safe_orders");
  const words = t("phone.reveal.ask");
  return el("button", { type: "button", class: `option reveal-ask${blocked ? " blocked" : ""}`,
                        id: "reveal-ask", disabled: blocked, onclick: onReveal },
    blocked ? t("game.blocked", { option: words, reason: label("reason", "safe_orders") })
            : words);
}

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

// The action list: open choices first (those differing only by player on one line, a button
// per player), the reveal before "pass", then one line per kind of blocked choice and reason.
function actionChoices(decision, view, sentences, reasons, send, veiled, refuse, onReveal) {
  const ask = asksReveal(decision, view);
  const rank = (option) => (option[0] === "pass" ? 1000
    : ACTION_ORDER.includes(option[0]) ? ACTION_ORDER.indexOf(option[0]) : 500);
  const shown = decision.options.map((option, i) => ({ option, sentence: sentences[i], why: null }))
    .filter(({ option }) => !(ask && option[0] === "reveal"));
  const greyed = [];
  decision.blocked.forEach(([option, why], i) => {
    if (ask && option[0] === "reveal") return;
    // Under the veil an action the seat's dice block looks open, like every other.
    if (veiled && DICE_REASONS.has(why)) shown.push({ option, sentence: null, why });
    else greyed.push({ option, why, sentence: reasons[i] });
  });
  shown.sort((a, b) => rank(a.option) - rank(b.option)
                       || JSON.stringify(a.option).localeCompare(JSON.stringify(b.option)));
  const tap = ({ option, why }) => () => (why ? refuse(t("game.blocked", {
    option: actionLabel(option, view), reason: reasonText(why) })) : send(option));
  const rows = [];
  const groups = new Map();
  for (const item of shown) {
    const { option } = item;
    const target = seatTarget(option);
    const words = actionLabel(option, view, veiled ? null : item.sentence);
    if (target !== null && has(`phone.group.${option[0]}`)) {
      let group = groups.get(option[0]);
      if (!group) {
        group = el("div", { class: "chips" });
        groups.set(option[0], group);
        rows.push(el("div", { class: "choice-group", "data-kind": option[0] },
          el("span", { class: "group-name" }, t(`phone.group.${option[0]}`)), group));
      }
      group.append(el("button", { type: "button", class: "option chip",
                                  "data-option": JSON.stringify(option), "aria-label": words,
                                  onclick: tap(item) }, seatName(view, target)));
    } else {
      rows.push(el("button", { type: "button", class: "option",
                               "data-option": JSON.stringify(option), onclick: tap(item) }, words));
    }
  }
  if (ask) {
    const pass = rows.findIndex((b) => b.dataset && b.dataset.option === '["pass"]');
    rows.splice(pass < 0 ? rows.length : pass, 0, revealButton(decision, view, onReveal));
  }
  // One line per kind of blocked choice and reason: "Call a clearance vote — blocked by…".
  const lines = new Map();
  for (const item of greyed) {
    const key = `${item.option[0]}|${item.why}`;
    if (!lines.has(key)) lines.set(key, []);
    lines.get(key).push(item);
  }
  const blocked = [...lines.values()].map((items) => {
    const [{ option, why, sentence }] = items;
    const several = items.length > 1 && has(`phone.kind.${option[0]}`);
    const words = several
      ? t("game.blocked", { option: t(`phone.kind.${option[0]}`), reason: reasonText(why) })
      : sentence || t("game.blocked", { option: actionLabel(option, view), reason: reasonText(why) });
    return el("p", { class: "option-blocked", "data-option": JSON.stringify(option),
                     "data-count": items.length }, words);
  });
  return [el("div", { class: "options" }, rows),
          blocked.length ? el("div", { class: "blocked-list", id: "blocked-list" }, blocked) : null];
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
    const changeable = kind === "vote" && decision.options.length > 0;
    // Under the veil the ballot cast stays in the fist: only that one was cast.
    parts.push(el("p", { class: "own-choice", id: "own-choice" },
      veiled ? t(changeable ? "phone.vote.cast_veiled" : "phone.vote.cast")
      : kind === "vote" ? t(changeable ? "phone.vote.yours_change" : "phone.vote.yours",
                            { ballot: words })
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
  } else if (kind === "roll_dice" && decision.options.every((o) => o[0] === "roll")) {
    parts.push(rollPicker(decision, view, send, JSON.stringify([view.state_id, decision.options])));
  } else {
    if (kind === "submit" && view.you.rolled.length) {
      parts.push(dicePicker(decision, view, send, picked));
    }
    // A roll's dice are picked above; the corporation dice (Shadow Corporation) are one
    // button each: "Show -1 corporation".
    const picking = kind === "submit";
    const buttons = decision.options.map((option, i) => ((picking && option[0] === "submit")
      ? null
      : el("button", { type: "button", class: "option", "data-option": JSON.stringify(option),
                       onclick: () => send(option) },
           sentences[i] || optionLabel(option, view)))).filter(Boolean);
    const blocked = decision.blocked.map(([option, why], i) =>
      el("p", { class: "option-blocked", "data-option": JSON.stringify(option) },
         reasons[i] || t("game.blocked", { option: optionLabel(option, view),
                                           reason: reasonText(why) })));
    parts.push(el("div", { class: "options" }, buttons),
               blocked.length ? el("div", { class: "blocked-list", id: "blocked-list" }, blocked)
                              : null);
  }
  return el("section", { class: "decision", id: "decision", "data-decision": kind,
                         "data-veiled": veiled ? "" : null }, parts);
}
