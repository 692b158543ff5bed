// The host's phone: sets up a game, watches seats join, starts it, corrects public counters
// when the board and the app disagree, and frees a lost phone's seat. It is built from the
// public view only: the host is also a player and sees nothing secret here.
import { call, chosenLang, el, label, langToggle, live, loadLang, t, toast,
         tokenFromPath, Refused } from "./common.js";
import { board, setFaces } from "./board-view.js";
import { correctionsPanel } from "./corrections.js";

const token = tokenFromPath();
const api = `/api/host/${encodeURIComponent(token)}`;
let payload = null;
let choices = null;
let stream = null;
let shownPhase = null;  // the form opens by itself only when the phase changes
// The seat's re-bind or hand-over waiting for a second, confirming tap: "rebind:2"
let confirming = null;
let expansionOn = false;  // Shadow Corporation ticked: its characters and final events too

const $ = (id) => document.getElementById(id);

async function post(path, body) {
  try {
    return await call("POST", `${api}/${path}`, body);
  } catch (error) {
    if (error.code === "stale_state") stream.refresh();
    else toast(error.message, "error");
    return null;
  }
}

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

// --- seats joining, start, re-bind ---

// A button that acts on a seat only at a second tap: the first arms it (in red), the second
// posts `route` and says `done`. The words are phone.host.<key> and <key>_confirm.
function twoTaps(s, route, key, done) {
  const id = `${route}:${s.seat}`;
  const armed = confirming === id;
  const words = key.replace("-", "_");
  return el("button", {
    type: "button", class: armed ? "danger" : "", [`data-${key}`]: s.seat,
    onclick: async () => {
      if (!armed) { confirming = id; render(); return; }
      confirming = null;
      if (await post(route, { seat: s.seat })) toast(t(`phone.host.${done}`, { name: s.name }));
      render();
    } }, t(armed ? `phone.host.${words}_confirm` : `phone.host.${words}`));
}

function joinPanel() {
  const room = payload.room;
  if (!room.seats.length) return [el("p", {}, t("phone.host.no_game"))];
  const rows = room.seats.map((s) => {
    const state = s.bot ? "bot" : s.claimed ? "joined" : "not_joined";
    const rebind = s.claimed && twoTaps(s, "rebind", "rebind", "rebound");
    // A bot's seat goes to a person only by this deliberate act, announced everywhere.
    const handOver = s.bot && twoTaps(s, "handover", "hand-over", "handed_over");
    return el("li", { class: state, "data-seat": s.seat }, el("span", {}, s.name), " — ",
              t(`phone.lobby.${state}`), " ", rebind || handOver || "");
  });
  const parts = [el("h2", {}, t("phone.host.seats")), el("ul", { class: "join" }, rows)];
  if (room.phase === "over") {
    // The same phones stay on the same seats: one tap deals the next game. As for a start,
    // only once every seat has a phone or a bot (a seat re-bound since waits for its phone).
    const held = room.seats.every((s) => s.claimed || s.bot);
    parts.push(el("button", { type: "button", class: "primary", id: "again", disabled: !held,
                              onclick: () => post("again") }, t("phone.host.again")),
               el("p", { class: "hint", id: "again-hint" },
                  t(held ? "phone.host.again_hint" : "phone.host.again_waits")),
               // Every roll, card and vote in words, in this phone's language: only after the
               // game, when nothing is secret any more (the server refuses it before).
               el("a", { class: "button", id: "record", download: "",
                         href: `${api}/record?lang=${chosenLang()}` }, t("phone.host.save_record")),
               el("p", { class: "hint" }, t("phone.host.record_hint")));
  }
  if (room.phase === "join") {
    parts.push(el("button", { type: "button", class: "primary", id: "start",
                              disabled: !payload.can_start,
                              onclick: () => post("start") }, t("phone.host.start")));
    parts.push(el("p", { class: payload.can_start ? "hint ready" : "hint", id: "start-hint" },
                  t(payload.can_start ? "phone.host.everyone" : "phone.host.start_hint")));
  }
  return parts;
}

function render() {
  if (!payload) return;
  const phase = payload.room.phase;
  $("join").replaceChildren(...joinPanel());
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
    await call("POST", `${api}/claim`);
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
    getUrl: api, eventsUrl: `${api}/events`,
    onView: (data) => { payload = data; render(); },
    onError: (error) => toast(error.message, "error"),
  });
}

main();
