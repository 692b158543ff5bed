// The seat's action list, and the blocked choices of any decision:
//
// - open choices first, those that differ only by player on one line ("Call a vote on" with
//   one button per player), the reveal before "pass";
// - blocked choices one line per kind and reason ("Call a clearance vote — blocked by…").
//
// The rules offer "reveal" to Infected seats only, so a plain list would tell a glancing
// neighbour the seat's status. Every seat that has not revealed gets the same
// "Reveal yourself…" button in the same place instead; it opens the Status card, which holds
// the real option (or says there is nothing to reveal).
import { el, has, label, t } from "./common.js";
import { seatName } from "./board-view.js";
import { actionLabel, optionLabel, reasonText, seatTarget } from "./option-words.js";

// Blocked actions whose reason is the dice the seat holds: a secret the veil keeps.
const DICE_REASONS = new Set(["no_dice", "needs_two_dice", "weak_dice_only",
                              "costly_actions_no_die"]);
// Where each kind of action sits in the list, whether it is open or blocked: the list keeps
// its shape whatever the seat holds.
const ACTION_ORDER = ["repair", "lone_wolf", "test_commander", "vote", "amputate", "clearance",
                      "takeoff", "order", "expose", "interference", "energy_spike", "sabotage",
                      "demoralize"];

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

// The blocked choices of any decision but the action list, one line each, in the server's
// words when it sent them.
export function blockedList(decision, view, reasons) {
  const blocked = decision.blocked.map(([option, why], i) =>
    el("p", { class: "option-blocked", "data-option": JSON.stringify(option) },
       reasons[i] || t("game.blocked", { option: optionLabel(option, view),
                                         reason: reasonText(why) })));
  return blocked.length ? el("div", { class: "blocked-list", id: "blocked-list" }, blocked)
                        : null;
}

// The action list: open choices first (those differing only by player on one line, a button
// per player), the reveal before "pass", then one line per kind of blocked choice and reason.
// Under the veil an action the seat's dice block looks open, like every other: its tap calls
// `refuse` with why instead of sending it.
export function actionChoices(decision, view, sentences, reasons, send, veiled, refuse,
                              onReveal) {
  const ask = asksReveal(decision, view);
  const rank = (option) => (option[0] === "pass" ? 1000
    : ACTION_ORDER.includes(option[0]) ? ACTION_ORDER.indexOf(option[0]) : 500);
  const shown = decision.options.map((option, i) => ({ option, sentence: sentences[i], why: null }))
    .filter(({ option }) => !(ask && option[0] === "reveal"));
  const greyed = [];
  decision.blocked.forEach(([option, why], i) => {
    if (ask && option[0] === "reveal") return;
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
  return [el("div", { class: "options" }, rows), blockedLines(greyed, view)];
}

// One line per kind of blocked choice and reason: "Call a clearance vote — blocked by…".
function blockedLines(greyed, view) {
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
  return blocked.length ? el("div", { class: "blocked-list", id: "blocked-list" }, blocked)
                        : null;
}
