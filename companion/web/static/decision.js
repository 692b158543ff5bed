// The seat's pending decision as buttons: one per legal option (its sentence from the
// server's text.options), blocked options shown disabled with their reason, and a dice
// picker for submitting a roll (tap dice, then one Submit button).
//
// The rules offer "reveal" to Infected seats only, so a plain list would tell a glancing
// neighbour the seat's status. Every seat that has not revealed gets the same
// "Reveal yourself…" button in the same place instead; it opens the Status card, which holds
// the real option (or says there is nothing to reveal).
import { el, t, label } from "./common.js";
import { face, seatName } from "./board-view.js";

const SEAT_OPTIONS = new Set(["vote", "order", "player", "target"]);
const COUNT_OPTIONS = new Set(["roll", "discard", "take"]);
const CARD_OPTIONS = { task: "task", event: "event" };

// Used only when the server sent no sentence for an option.
export function optionLabel(option, view) {
  const [kind, ...rest] = option;
  const head = label("option", kind);
  if (SEAT_OPTIONS.has(kind)) return `${head} ${seatName(view, rest[0])}`;
  if (COUNT_OPTIONS.has(kind)) {
    return `${head} ` + ["strong", "weak", "commander"].slice(0, rest.length)
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

// The legal ["submit", ...] option holding exactly the picked dice. Identical dice make one
// option, not several, so the match is by colour and face, not by index.
export function submitFor(picked, rolled, options) {
  const key = (idx) => idx.map((i) => rolled[i].join(":")).sort().join(",");
  const wanted = key([...picked]);
  return options.find((o) => o[0] === "submit" && o.length - 1 === picked.size
                                && key(o.slice(1)) === wanted) || null;
}

function dicePicker(decision, view, send, picked) {
  const rolled = view.you.rolled;
  const submitOptions = decision.options.filter((o) => o[0] === "submit");
  const button = el("button", { type: "button", class: "primary", id: "submit-dice" });
  const why = el("p", { class: "why", id: "submit-why" });
  const sizes = submitOptions.map((o) => o.length - 1);
  const most = Math.max(...sizes);
  const least = Math.min(...sizes);
  const me = view.seats[view.you.seat];
  // Why the picked dice cannot go: from the sizes offered and public facts only (a fatigued
  // or revealed seat submits one die), so it reads the same whatever the seat's status.
  function reason() {
    if (!picked.size) return "";
    if (picked.size > most) {
      if (most === 1) return t(me.fatigued || me.revealed ? "phone.submit.one_fatigued"
                                                          : "phone.submit.one_only");
      return t("phone.submit.at_most", { count: most });
    }
    if (picked.size < least) return t("phone.submit.at_least", { count: least });
    return t("phone.submit.not_these");
  }
  function update() {
    const option = submitFor(picked, rolled, submitOptions);
    button.disabled = option === null;
    button.textContent = t(picked.size === 1 ? "phone.submit_die" : "phone.submit_dice",
                           { count: picked.size });
    button.onclick = () => option && send(option);
    why.textContent = option === null ? reason() : "";
    for (const node of chips.querySelectorAll(".die")) {
      const on = picked.has(Number(node.dataset.index));
      node.classList.toggle("picked", on);
      node.setAttribute("aria-pressed", String(on));
    }
  }
  const chips = el("div", { class: "rolled", id: "rolled" }, rolled.map(([colour, value], i) =>
    face(colour, value, {
      role: "button", tabindex: "0", "data-index": i, "data-colour": colour, "data-face": value,
      onclick: () => { picked.has(i) ? picked.delete(i) : picked.add(i); update(); },
    })));
  update();
  return el("div", { class: "picker" }, el("p", {}, t("phone.pick_dice")), chips, button, why);
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

export function decisionPanel(decision, payload, send, picked, onReveal) {
  const view = payload.view;
  const text = payload.text || {};
  const sentences = text.options || [];
  const reasons = text.blocked || [];
  const title = text.decision || label("decision", decision.decision);
  const parts = [el("h2", {}, title)];
  if (decision.decision === "continue" && view.task) {
    // Whether to roll again depends on how far the track is from the difficulty: say both.
    parts.push(el("p", { class: "task-progress", id: "task-progress" },
      t("phone.task.progress", { total: view.task.success_total,
                                 difficulty: view.task.difficulty })));
  }
  if (decision.chosen) {
    parts.push(el("p", { class: "own-choice" }, t("phone.chosen", {
      choice: optionLabel(decision.chosen, view) })));
  }
  if (decision.decision === "submit" && view.you.rolled.length) {
    parts.push(dicePicker(decision, view, send, picked));
  }
  const ask = asksReveal(decision, view);
  const hidden = (option) => ask && option[0] === "reveal";
  // A roll's dice are picked above; the corporation dice (Shadow Corporation) are one button
  // each: "Show -1 corporation".
  const picking = decision.decision === "submit";
  const buttons = decision.options.map((option, i) => ((picking && option[0] === "submit")
    || hidden(option)
    ? null :
    el("button", { type: "button", class: "option", "data-option": JSON.stringify(option),
                   onclick: () => send(option) },
       sentences[i] || optionLabel(option, view)))).filter(Boolean);
  if (ask) {
    // Where the rules put the reveal for an Infected seat: just before "pass".
    const pass = buttons.findIndex((b) => b.dataset.option === '["pass"]');
    buttons.splice(pass < 0 ? buttons.length : pass, 0, revealButton(decision, view, onReveal));
  }
  const blocked = decision.blocked.map(([option, why], i) => (hidden(option) ? null :
    el("button", { type: "button", class: "option blocked", disabled: true,
                   "data-option": JSON.stringify(option) },
       reasons[i] || `${optionLabel(option, view)} — ${label("reason", why)}`)));
  parts.push(el("div", { class: "options" }, buttons, blocked));
  return el("section", { class: "decision", id: "decision",
                         "data-decision": decision.decision }, parts);
}
