// What the veil over an idle phone shows: whose turn it is (public), and "Tap to show".
//
// A decision whose question and choices are the same for every seat asked (IN/OUT, a ballot,
// the action list) is on the veil itself, answered with one tap; everything that differs by a
// secret (dice, roll, cards in hand, notes, the Status card) stays behind "Tap to show".
import { el, t, toast } from "./common.js";
import { banner } from "./board-view.js";
import { OPEN_KINDS, decisionPanel } from "./decision.js";
import { alert as buzz } from "./buzz.js";

// `send(option)` sends a choice; `lift()` lifts the veil; `openCard()` opens the Status card
// (where "Reveal yourself…" leads).
export function veilPanel(payload, { send, lift, openCard }) {
  // A choice tapped on the veil that the seat's dice do not allow: nothing is sent; the veil
  // lifts (the seat's dice show why) and the phone says so.
  const unveilAndSay = (why) => {
    lift();
    toast(why, "refusal");
    buzz();
  };
  const decision = payload.view.you.decision;
  if (decision && OPEN_KINDS.has(decision.decision)
      && (decision.options.length || decision.chosen)) {
    return [decisionPanel(decision, payload, send, new Set(), () => { lift(); openCard(); },
                          { veiled: true, refuse: unveilAndSay }),
            el("button", { type: "button", id: "unveil", class: "veil-lift", onclick: lift },
               t("phone.veil.tap_private"))];
  }
  return [el("button", { type: "button", id: "unveil", class: "veil", onclick: lift },
    el("span", { class: "veil-turn" }, banner(payload)),
    el("span", { class: "veil-hint" }, t("phone.veil.tap")))];
}
