// The public board for a TV or spectators: the public view only, in large type.
import { call, chosenLang, langToggle, live, loadLang, toast } from "./common.js";
import { board, setFaces } from "./board-view.js";

let payload = null;
let stream = null;

function render() {
  if (payload) document.getElementById("public").replaceChildren(board(payload));
}

async function main() {
  await loadLang(chosenLang());
  document.getElementById("lang").append(langToggle(() => { render(); stream.reopen(); }));
  call("GET", "/api/choices").then((known) => { setFaces(known.faces); render(); }, () => {});
  stream = live({
    getUrl: "/api/board", eventsUrl: "/api/board/events",
    onView: (data) => { payload = data; render(); },
    onError: (error) => toast(error.message, "error"),
  });
}

main();
