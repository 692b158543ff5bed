// The words a decision's choices are shown with, when the server sent none for them or when
// the phone words a choice itself (an action open or blocked alike, a ballot in the words of
// the vote being held, a count of dice set on the steppers).
import { has, label, t } from "./common.js";
import { seatName } from "./board-view.js";

export const SEAT_OPTIONS = new Set(["vote", "order", "player", "target"]);
// Options naming dice by a count per colour, in this order: ["take", strong, weak] and
// ["roll"|"discard", strong, weak, commander].
export const COUNT_OPTIONS = new Set(["roll", "discard", "take"]);
export const COLOURS = ["strong", "weak", "commander"];
const CARD_OPTIONS = { task: "task", event: "event" };

export const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
export const legalIn = (decision, option) => decision.options.some((o) => same(o, option));

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

// "2 strong dice and 1 weak die", in the catalogue's words (the server's own wording).
export function countWords(counts) {
  const parts = COLOURS.slice(0, counts.length).map((colour, i) => (counts[i]
    ? t(`game.dice.${colour}.${counts[i] === 1 ? "one" : "many"}`, { n: counts[i] }) : null))
    .filter(Boolean);
  if (!parts.length) return t("game.dice.none");
  if (parts.length === 1) return parts[0];
  return t("game.list.and", { first: parts.slice(0, -1).join(", "),
                              last: parts[parts.length - 1] });
}

// A number of dice, whatever their colour: "1 die", "3 dice".
export function diceCount(n) {
  return t(n === 1 ? "phone.count.die" : "phone.count.dice", { n });
}

// A ballot in the words of the vote being held (Shadow Corporation's votes mean other things).
export function ballotLabel(colour, data) {
  const kind = data && data.kind;
  return kind && has(`game.option.vote.${kind}.${colour}`)
    ? t(`game.option.vote.${kind}.${colour}`) : t(`game.option.vote.${colour}`);
}

export function seatTarget(option) {
  return option.length === 2 && Number.isInteger(option[1]) ? option[1] : null;
}

// An action in the catalogue's words, worked out here so that it reads the same whether the
// action is open or blocked by the seat's dice (the server words only the open ones plainly).
export function actionLabel(option, view, sentence) {
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
