// The table code's page: every seat in seat order; a player taps their own seat, which opens
// that seat's page (it claims the seat, as scanning the seat's own code would). The seat
// codes come sealed (op `seats` on the table code, seal.js) and go only into the links.
import { chosenLang, el, langToggle, loadLang, pageCode, t } from "./common.js";

const code = pageCode();
// A seat's page opened from here offers a way back to this list: no page sends a referrer, and
// one would never hold the code after "#", so the list leaves it, and the seat tapped, in this
// tab's own storage.
function remember(key, value) {
  try { sessionStorage.setItem(key, value); } catch (refused) { /* no way back */ }
}
remember("dm_table", code.token);
const list = document.getElementById("seats");
const message = document.getElementById("message");
let seats = null;
const left = Number(new URLSearchParams(location.search).get("left")) || null;

function draw() {
  message.textContent = "";
  message.className = "";
  if (seats === null) return;
  list.replaceChildren(...seats.map((s) => {
    const label = [el("span", { class: "seat-number" }, t("phone.join.seat", { n: s.seat + 1 })),
                   el("span", { class: "seat-name" }, s.name)];
    if (s.token) {
      return el("li", {}, el("a", { class: "button", href: `/s#${s.token}`,
                                    onclick: () => remember("dm_tapped", s.token) }, label));
    }
    // A bot's seat is no phone's to take: the host hands it to a person (a new code).
    return el("li", { class: s.bot ? "taken bot" : "taken" }, label,
              el("span", { class: "hint" },
                 t(s.bot ? "phone.lobby.bot" : "phone.lobby.joined")));
  }));
  if (!seats.some((s) => s.token)) {
    message.className = "message";
    message.textContent = t("phone.join.all_taken");
  } else if (left) {
    // Back from a seat this phone gave up (a wrong tap): the seat is free again for its player.
    message.className = "message";
    message.textContent = t("phone.join.left", { n: left });
  }
}

async function load() {
  try {
    seats = (await code.call("seats")).seats;
    draw();
  } catch (error) {
    seats = null;
    list.replaceChildren();
    message.className = "message error";
    message.textContent = error.code === "unknown_token" ? t("phone.join.unknown_token")
      : error.message;
  }
}

await loadLang(chosenLang());
document.getElementById("lang").append(langToggle(load));
// Back from a seat's page: seats claimed meanwhile show as taken.
addEventListener("pageshow", (event) => { if (event.persisted) load(); });
await load();
