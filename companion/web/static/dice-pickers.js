// The seat's dice chosen as dice, never as a list of every combination:
//
// - a roll to submit from: one tap per die, and with one die to submit the tap is the choice;
// - the dice to roll, to take from the pool or to discard: a count per colour on − and +
//   steppers and one button, set beforehand to what most players choose. When the number of
//   dice is fixed (the dice to take at a turn's start, the dice to discard), a step swaps a
//   die of one colour for one of another, as a hand would: the count stays right.
import { el, t } from "./common.js";
import { face } from "./board-view.js";
import { COLOURS, countWords, diceCount, same } from "./option-words.js";

// The legal ["submit", ...] option holding exactly the picked dice. Identical dice make one
// option, not several, so the match is by colour and face, not by index.
export function submitFor(picked, rolled, options) {
  const key = (idx) => idx.map((i) => rolled[i].join(":")).sort().join(",");
  const wanted = key([...picked]);
  return options.find((o) => o[0] === "submit" && o.length - 1 === picked.size
                                && key(o.slice(1)) === wanted) || null;
}

// --- submitting a roll: tap dice; with one die to submit, the tap submits it ---

export function submitPicker(decision, view, send, picked) {
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

// --- dice chosen by a count per colour: the dice to roll, to take, to discard ---

const total = (o) => o.slice(1).reduce((a, b) => a + b, 0);
// What most players choose, set beforehand so that it is one tap on the button: the most dice
// to roll or to take, the strong ones first; to discard, the weak ones first (a player keeps
// the strong dice and the commander die). Each ranks an option; the highest is preset.
const PREFERRED = {
  roll: (o) => [total(o), o[1], o[3] || 0],
  take: (o) => [total(o), o[1]],
  discard: (o) => [-(o[3] || 0), -o[1], -total(o)],
};

function preset(verb, options) {
  const rank = PREFERRED[verb];
  const better = (a, b) => {
    const [x, y] = [rank(a), rank(b)];
    const i = x.findIndex((v, k) => v !== y[k]);
    return i >= 0 && x[i] > y[i];
  };
  return options.reduce((best, o) => (better(o, best) ? o : best));
}

const kept = new Map();  // the counts being set, kept across redraws of one decision

// A decision whose options are all ["roll"|"take"|"discard", counts...]: the counts per
// colour on steppers, and one button holding the option they make (its `data-option`).
// `key` tells one decision from the next (the counts set are kept while it stays).
//
// With a fixed number of dice a step on one colour takes the die from, or gives it to, the
// next colour that can (strong, weak, commander, round again): so colours set in that order
// are each set once, and the last one follows.
export function countPicker(decision, send, key) {
  const options = decision.options;
  const verb = options[0][0];
  const width = Math.max(...options.map((o) => o.length - 1));
  const counts = kept.get(key) || preset(verb, options).slice(1);
  kept.clear();
  kept.set(key, counts);
  const highest = COLOURS.slice(0, width).map((_, i) => Math.max(...options.map((o) => o[i + 1])));
  const totals = options.map(total);
  const [least, most] = [Math.min(...totals), Math.max(...totals)];
  const fixed = least === most;
  // The colour a swap with colour i takes a die from (`from`) or gives one to; none: -1.
  const partner = (i, from) => [1, 2].map((k) => (i + k) % COLOURS.length)
    .filter((j) => j < width && (from ? counts[j] > 0 : counts[j] < highest[j]))
    .concat(-1)[0];
  const step = (i, by) => {
    if (fixed) counts[partner(i, by > 0)] -= by;
    counts[i] += by;
    update();
  };
  const button = el("button", { type: "button", class: `primary option go ${verb}`,
                                id: `${verb}-dice` });
  const why = el("p", { class: "why", id: `${verb}-why` });
  const rows = [];
  const match = () => options.find((o) => same(o.slice(1), counts)) || null;
  // Why these counts make no choice: how many dice may go, else that these do not go together.
  function reason() {
    const n = counts.reduce((a, b) => a + b, 0);
    if (n > most) return t("phone.count.at_most", { dice: diceCount(most) });
    if (n < least) return t("phone.count.at_least", { dice: diceCount(least) });
    return t("phone.count.not_these");
  }
  function update() {
    const option = match();
    button.disabled = option === null;
    if (option) button.dataset.option = JSON.stringify(option);
    else delete button.dataset.option;
    const none = counts.every((n) => n === 0);
    button.textContent = t(`game.option.${decision.decision}${none ? ".none" : ""}`,
                           { dice: countWords(counts) });
    why.textContent = option ? "" : reason();
    for (const row of rows) row.update();
  }
  button.onclick = () => { const option = match(); if (option) send(option); };
  COLOURS.slice(0, width).forEach((colour, i) => {
    if (!highest[i]) return;  // a colour the seat may not choose here: no row for it
    const named = { colour: t(`phone.die.${colour}`) };
    const value = el("span", { class: `die-count ${colour}`, "data-count": colour });
    const less = el("button", { type: "button", class: "step", "data-step": `${colour}-`,
                                "aria-label": t("phone.count.less", named),
                                onclick: () => step(i, -1) }, "−");
    const more = el("button", { type: "button", class: "step", "data-step": `${colour}+`,
                                "aria-label": t("phone.count.more", named),
                                onclick: () => step(i, +1) }, "+");
    const row = el("div", { class: "count-row", "data-colour": colour },
      el("span", { class: "count-name" }, t(`phone.legend.${colour}`)), less, value, more);
    row.update = () => {
      value.textContent = String(counts[i]);
      less.disabled = counts[i] <= 0 || (fixed && partner(i, false) < 0);
      more.disabled = counts[i] >= highest[i] || (fixed && partner(i, true) < 0);
    };
    rows.push(row);
  });
  update();
  return el("div", { class: "count-picker", id: `${verb}-picker`, "data-verb": verb },
            rows, button, why);
}
