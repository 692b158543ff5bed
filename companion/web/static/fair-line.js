// Fair dealing on the phones and the board page: the commitment's fingerprint (the whole
// hash on a tap), the games dealt on this Pi, and at game over the way to check the deal.
// A seat's phone also gives its own randomness to every deal (docs/fair.md).
import { call, el, t } from "./common.js";

// 32 bytes from the browser's generator, as hex: a phone's part of the next deal.
export function randomness() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

let givenFor = null;  // the commitment this phone last gave to: once each

// A seat whose phone has not given to the commitment waiting for a deal gives now (a phone
// that claimed before, or the next game's, dealt by "play again").
export function giveIfAsked(api, room, seat) {
  const mine = room.seats[seat];
  const waiting = room.fair && (room.phase === "join" ? room.fair.fingerprint : room.fair.next);
  if (!mine || mine.contributed || !waiting || givenFor === waiting) return;
  givenFor = waiting;
  call("POST", `${api}/contribute`, { contribution: randomness() }).catch(() => {
    givenFor = null;  // tried again with the next view
  });
}

// `seat`: on a seat's page before the deal, whether its phone has given yet.
export function fairLine(room, seat = null) {
  const fair = room && room.fair;
  if (!fair || !room.seats.length) return null;
  const parts = [];
  if (seat !== null && room.phase === "join" && room.seats[seat]) {
    parts.push(el("p", { class: "fair-given" },
      t(room.seats[seat].contributed ? "phone.fair.given" : "phone.fair.waiting")));
  }
  if (fair.commitment) {
    parts.push(el("details", { class: "fair-commitment" },
      el("summary", {}, t("phone.fair.commitment", { fingerprint: fair.fingerprint })),
      el("code", {}, t("phone.fair.whole", { commitment: fair.commitment }))));
  } else {
    parts.push(el("p", {}, t("phone.fair.seeded")));
  }
  if (fair.game) {
    parts.push(el("p", { class: "fair-dealt" },
      t("phone.fair.dealt", { game: fair.game, dealt: fair.games_dealt })));
  }
  if (room.phase === "over" && fair.commitment) {
    parts.push(el("p", { class: "fair-check" },
      el("a", { href: "/fair", target: "_blank" }, t("phone.fair.check")), " · ",
      el("a", { href: "/api/fair/record", download: `darkmoon-game-${fair.game}.json` },
         t("phone.fair.record"))));
  }
  return el("section", { class: "fair", id: "fair" }, parts);
}
