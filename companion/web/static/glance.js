// What a neighbour could see on a phone lying on the table. Two timers keep private details
// off the screen: a panel opened on purpose (the Status card, the private notes) closes by
// itself, and a phone nobody touches hides everything private behind a veil.
//
// Both delays are read from <body data-idle data-shut> (milliseconds) each time a timer is
// armed, so a test can shorten them without sleeping; `?idle=` and `?shut=` in the page's
// address set them at start.

const DEFAULTS = { idle: 10000, shut: 8000 };

export function delay(name) {
  const value = Number(document.body.dataset[name]);
  return Number.isFinite(value) && value > 0 ? value : DEFAULTS[name];
}

export function delaysFromAddress() {
  const query = new URLSearchParams(location.search);
  for (const name of Object.keys(DEFAULTS)) {
    const value = Number(query.get(name));
    if (Number.isFinite(value) && value > 0) document.body.dataset[name] = String(value);
  }
}

// A panel that closes by itself `shut` ms after it was opened.
export function autoClose(close) {
  let timer = null;
  return {
    arm() { clearTimeout(timer); timer = setTimeout(close, delay("shut")); },
    cancel() { clearTimeout(timer); timer = null; },
  };
}

// Calls veil(true) after `idle` ms without a touch, a click, a key or a scroll wheel; the
// page calls lift() when the player taps the veil. A finger still down (holding the Status
// card) is not idle.
export function idleVeil(veil) {
  let timer = null;
  let down = false;  // a flag, not a count: one lost pointerup must not keep the veil off
  function arm() {
    clearTimeout(timer);
    timer = setTimeout(() => (down ? arm() : veil(true)), delay("idle"));
  }
  const touched = () => arm();
  document.addEventListener("pointerdown", () => { down = true; arm(); }, true);
  for (const name of ["pointerup", "pointercancel"]) {
    document.addEventListener(name, () => { down = false; arm(); }, true);
  }
  for (const name of ["keydown", "wheel", "touchstart"]) {
    document.addEventListener(name, touched, { capture: true, passive: true });
  }
  // A phone put to sleep wakes up veiled: its screen lighting up shows nothing private.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") veil(true);
  });
  arm();
  return {
    lift() { veil(false); arm(); },
  };
}
