// The host's corrections of public counters (docs/table-api.md "Corrections"): each control
// shows what the app believes and sends what the physical board shows.
import { el, t, label } from "./common.js";

function setter(name, values, current, send, show = String) {
  const select = el("select", { "data-correct": name, "aria-label": t(`phone.correct.${name}`) },
    values.map((v) => el("option", { value: JSON.stringify(v) }, show(v))));
  select.value = JSON.stringify(current);
  return el("div", { class: "correct-row" },
    el("span", {}, t(`phone.correct.${name}`)), select,
    el("button", { type: "button", "data-set": name,
                   onclick: () => send([name, JSON.parse(select.value)]) }, t("phone.correct.set")));
}

function toggles(kind, all, onBoard, send, labelKind) {
  return el("div", { class: "correct-row tokens" },
    el("span", {}, t(`phone.correct.${kind}`)),
    all.map((token) => {
      const on = onBoard.includes(token);
      return el("button", { type: "button", class: on ? "on" : "", "aria-pressed": String(on),
                            "data-token": `${kind}:${token}`,
                            onclick: () => send([kind, token, on ? "off" : "on"]) },
                label(labelKind, token));
    }));
}

const upTo = (n, from = 0) => Array.from({ length: n - from }, (_, i) => i + from);

export function correctionsPanel(view, choices, send) {
  if (!view) return [];
  const rows = [
    setter("shield", upTo(7), view.shield.tokens, send),
    toggles("outpost", choices.outpost_tokens || [], view.outpost.tokens, send, "token"),
    toggles("fatigue", choices.fatigue_tokens || [], view.fatigue.tokens, send, "token"),
    setter("sabotage", ["none", "shield", "outpost", "fatigue"], view.sabotage || "none", send,
           (a) => (a === "none" ? t("phone.none") : label("area", a))),
  ];
  if (view.suspicion !== null) rows.push(setter("suspicion", upTo(4, 1), view.suspicion, send));
  if (view.event && !view.final_event.active) {
    rows.push(setter("event_cubes", upTo(view.event.needed), view.event.cubes, send));
  }
  rows.push(setter("final_cubes", upTo(view.final_event.needed), view.final_event.cubes, send));
  return [el("details", { class: "corrections" },
    el("summary", {}, t("phone.correct.title")),
    el("p", { class: "hint" }, t("phone.correct.hint")), rows)];
}
