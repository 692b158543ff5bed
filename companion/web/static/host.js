// The host's phone: sets up a game, watches seats join, starts it, corrects public counters
// when the board and the app disagree, and frees a lost phone's seat. It is built from the
// public view only: the host is also a player and sees nothing secret here. A host who plays
// takes their seat here ("I play this seat"): this page then becomes that seat's page, which
// holds the same controls (host-panel.js), so one page does both jobs.
import { call, chosenLang, el, label, langToggle, live, loadLang, pageCode, t, toast,
         Refused } from "./common.js";
import { board, setFaces } from "./board-view.js";
import { correctionsPanel } from "./corrections.js";
import { hostControls, hostPost } from "./host-panel.js";

// The host code, from the address after "#": everything this page says to the Pi is sealed.
const code = pageCode();
let payload = null;
let choices = null;
let stream = null;
let shownPhase = null;  // the form opens by itself only when the phase changes
let expansionOn = false;  // Shadow Corporation ticked: its characters and final events too

const $ = (id) => document.getElementById(id);

const post = hostPost(code, () => stream.refresh());
const controls = hostControls(code, post, () => render());

// --- new game form: drawn once, so typing survives every update of the room ---

function seatRow(i, old) {
  const characters = el("select", { name: `character-${i}`,
                                     "aria-label": t("phone.host.character", { n: i + 1 }) },
    el("option", { value: "" }, t("phone.host.random")),
    characterIds().map((c) => el("option", { value: c }, label("character", c))));
  // A character of the expansion goes back to "random" when the expansion is unticked.
  if (old && characterIds().includes(old.character)) characters.value = old.character;
  return el("div", { class: "seat-row" },
    el("input", { name: `name-${i}`, required: true, maxlength: 24, autocomplete: "off",
                  "aria-label": t("phone.host.name", { n: i + 1 }),
                  placeholder: t("phone.host.name", { n: i + 1 }), value: old ? old.name : "" }),
    characters,
    el("label", { class: "bot" }, el("input", { type: "checkbox", name: `bot-${i}`,
                                                checked: old && old.bot }), t("phone.host.bot")));
}

function readRows(form) {
  return [...form.querySelectorAll(".seat-row")].map((row, i) => ({
    name: form[`name-${i}`].value.trim(), character: form[`character-${i}`].value,
    bot: form[`bot-${i}`].checked }));
}

function characterIds() {
  return choices.characters.concat(expansionOn ? choices.expansion.characters : []);
}

function finalIds() {
  return choices.final_events.concat(expansionOn ? choices.expansion.final_events : []);
}

// Seats left on "random" get the characters nobody chose, so a partly chosen table is legal.
function characterList(rows) {
  if (rows.every((r) => !r.character)) return null;
  const free = characterIds().filter((c) => !rows.some((r) => r.character === c));
  for (let i = free.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [free[i], free[j]] = [free[j], free[i]];
  }
  return rows.map((r) => r.character || free.pop());
}

// The names of the last table set up on this phone: the same friends play again next time.
const NAMES_KEY = "dm_names";

function remembered() {
  try {
    const names = JSON.parse(localStorage.getItem(NAMES_KEY) || "[]");
    return Array.isArray(names) ? names.filter((n) => n && typeof n.name === "string")
      .map((n) => ({ name: n.name, character: n.character || "", bot: Boolean(n.bot) })) : [];
  } catch (error) {
    return [];
  }
}

function drawForm() {
  const form = $("setup");
  const [least, most] = choices.players;
  const count = el("select", { name: "players", id: "players" });
  for (let n = least; n <= most; n++) count.append(el("option", { value: n }, String(n)));
  count.value = "4";
  // A redraw (new language) keeps what was typed; a fresh page starts from the last table.
  const typed = readRows(form);
  const kept = typed.length ? typed : remembered();
  if (kept.length) count.value = String(kept.length);
  const rows = el("div", { id: "seat-rows" });
  const fillRows = (old = readRows(form)) => {
    rows.replaceChildren(...Array.from({ length: Number(count.value) }, (_, i) => seatRow(i, old[i])));
  };
  const final = el("select", { name: "final_event" });
  const fillFinal = () => {
    const was = final.value;
    final.replaceChildren(el("option", { value: "" }, t("phone.host.random")),
      ...finalIds().map((f) => el("option", { value: f }, label("final", f))));
    final.value = finalIds().includes(was) ? was : "";
  };
  fillFinal();
  const expansion = el("input", { type: "checkbox", name: "expansion", id: "expansion",
                                  checked: expansionOn });
  expansion.onchange = () => {
    expansionOn = expansion.checked;
    for (const box of modules) {
      box.disabled = !expansionOn;
      if (!expansionOn) box.checked = false;
    }
    fillRows();
    fillFinal();
  };
  // Its modules (the Company Man) only with the expansion ticked.
  const modules = choices.expansion.modules.map((m) => el("input", {
    type: "checkbox", name: "module", value: m, disabled: !expansionOn }));
  const expansions = el("fieldset", { class: "variants" },
    el("legend", {}, t("phone.host.expansion")),
    el("label", {}, expansion, label("variant", choices.expansion.id)),
    modules.map((box) => el("label", {}, box, label("variant", box.value))));
  const variants = el("fieldset", { class: "variants" }, el("legend", {}, t("phone.host.variants")),
    choices.variants.map((v) => el("label", {}, el("input", { type: "checkbox", name: "variant",
                                                              value: v }), label("variant", v))));
  const gameLang = el("select", { name: "lang" }, choices.langs.map((l) =>
    el("option", { value: l }, t(`phone.lang.${l}`))));
  gameLang.value = payload ? payload.room.lang : "en";
  form.replaceChildren(
    el("label", {}, t("phone.host.players"), " ", count), rows,
    el("label", {}, t("phone.host.final"), " ", final), expansions, variants,
    el("label", {}, t("phone.host.lang"), " ", gameLang),
    el("label", { class: "replace", hidden: true }, el("input", { type: "checkbox", name: "replace" }),
       t("phone.host.replace")),
    el("button", { type: "submit", class: "primary", id: "create" }, t("phone.host.create")));
  fillRows(kept);
  count.onchange = () => fillRows();
  form.onsubmit = async (event) => {
    event.preventDefault();
    const seats = readRows(form);
    localStorage.setItem(NAMES_KEY, JSON.stringify(seats));
    const setup = { names: seats.map((s) => s.name),
                    variants: [...form.querySelectorAll("[name=variant]:checked")].map((c) => c.value)
                      .concat(expansionOn ? [choices.expansion.id] : [])
                      .concat([...form.querySelectorAll("[name=module]:checked")].map((c) => c.value)) };
    const characters = characterList(seats);
    if (characters) setup.characters = characters;
    if (final.value) setup.final_event = final.value;
    const done = await post("game", {
      setup, lang: gameLang.value, replace: form.replace.checked,
      bots: seats.flatMap((s, i) => (s.bot ? [i] : [])) });
    if (done) $("setup-box").open = false;
  };
}

// --- seats joining, start, re-bind, the host's own seat (host-panel.js) ---

// The seat this phone plays too, if any ({seat, token}): asked again when the seats change.
let mine = { seat: null };
let seatsSeen = "";

async function findMine() {
  const seen = JSON.stringify([payload.room.phase, payload.room.seats]);
  if (seen === seatsSeen) return;
  seatsSeen = seen;
  try {
    const sat = await code.call("my_seat");
    if (sat.seat !== mine.seat || sat.token !== mine.token) {
      mine = { seat: sat.seat, token: sat.token };
      render();
    }
  } catch (error) {
    seatsSeen = "";
  }
}

function render() {
  if (!payload) return;
  const phase = payload.room.phase;
  $("join").replaceChildren(...controls.seatsPanel(payload, mine));
  const wasOpen = Boolean($("corrections").querySelector("details[open]"));
  $("corrections").replaceChildren(...(phase === "play"
    ? correctionsPanel(payload.view, choices, (option) =>
        post("correct", { option, state_id: payload.view.state_id }))
    : []));
  const details = $("corrections").querySelector("details");
  if (details) details.open = wasOpen;
  const form = $("setup");
  if (form.replace) form.replace.closest("label").hidden = phase !== "play";
  if (phase !== shownPhase) $("setup-box").open = phase === "start" || phase === "over";
  shownPhase = phase;
  $("public").replaceChildren(board(payload));
}

async function main() {
  await loadLang(chosenLang());
  $("lang").append(langToggle(() => { drawForm(); render(); stream && stream.reopen(); }));
  try {
    choices = await call("GET", "/api/choices");
    setFaces(choices.faces);
    await code.call("claim");
  } catch (error) {
    const known = ["seat_claimed", "unknown_token", "not_your_seat"];
    $("message").replaceChildren(el("p", { class: "message error" },
      error instanceof Refused && known.includes(error.code) ? t(`phone.host.error.${error.code}`)
                                                            : error.message));
    $("setup-box").hidden = true;
    return;
  }
  drawForm();
  stream = live({
    code,
    onView: (data) => { payload = data; render(); findMine(); },
    onError: (error) => toast(error.message, "error"),
  });
}

main();
