// The landing page: only its words change with the language.
import { chosenLang, langToggle, loadLang } from "./common.js";

await loadLang(chosenLang());
document.getElementById("lang").append(langToggle(() => {}));
