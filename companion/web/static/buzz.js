// A small vibration and a beep when this seat is asked something, so a player who put the
// phone down notices. Browsers allow sound only from a user gesture, and a finger's
// pointerdown is not one (only its pointerup, a click or a key are): every such gesture tries
// to start the sound until it runs, so phones without vibration (iOS) still beep.
// <html data-sound> tells the sound's state (running, suspended, interrupted), for tests and
// support.
let audio = null;

function said() {
  document.documentElement.dataset.sound = audio.state;
}

export function unlockSound() {
  if (audio && audio.state === "running") return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    if (!audio) {
      audio = new Context();
      audio.addEventListener("statechange", said);
      said();
    }
    // Created outside a gesture, or interrupted while the phone slept: suspended until resumed.
    if (audio.state !== "running") audio.resume().catch(() => {});
  } catch (error) {
    audio = null;
  }
}

// The page's one AudioContext (awake.js takes its silent track from it), or null.
export function sound() {
  return audio;
}

export function alert() {
  if (navigator.vibrate) navigator.vibrate([60, 40, 60]);
  if (!audio || audio.state !== "running") return;
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.frequency.value = 880;
  gain.gain.setValueAtTime(0.15, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.2);
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.2);
}

for (const name of ["pointerup", "click", "keydown", "touchend"]) {
  document.addEventListener(name, unlockSound, { capture: true, passive: true });
}
