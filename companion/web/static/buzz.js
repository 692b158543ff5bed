// A small vibration and a beep when this seat is asked something, so a player who put the
// phone down notices. Browsers allow sound only after a touch, so the first touch on the
// page unlocks it; phones without vibration (iOS) still beep.
let audio = null;

export function unlockSound() {
  if (audio || !window.AudioContext) return;
  try { audio = new AudioContext(); } catch (error) { audio = null; }
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

document.addEventListener("pointerdown", unlockSound, { once: true });
