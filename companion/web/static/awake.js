// Keeps a seat's phone from falling asleep during a game, where the browser lets a page do it.
//
// The Screen Wake Lock API is the proper way, but browsers offer it only in a secure context
// (HTTPS, or localhost), and the phones reach the Pi at http://192.168.x.x. On plain HTTP the
// one thing that keeps a screen on is a playing video, and each engine has its own test for it
// (read in their sources: Blink's VideoWakeLock::ShouldBeActive, WebKit's
// HTMLMediaElement::shouldDisableSleep, Gecko's HTMLVideoElement::ShouldCreateVideoWakeLock):
//   - Blink (Chrome, Android): a playing video with frames that is either audible (an audio
//     track, volume above 0) or at least 20% of the viewport and 75% on screen;
//   - WebKit (Safari and every iOS browser): a playing video with an audio track, not muted,
//     volume above 0, and no `loop` attribute; a muted or looping clip keeps nothing awake;
//   - Gecko: a playing video whose source is a MediaStream, or that has audio.
// So the video is made here, on the phone, with no file at all: a tiny canvas's
// captureStream() plus a Web Audio track that nothing feeds (silence), played unmuted and
// inline (`playsinline`: an iPhone would otherwise open it full screen). A live stream never
// ends, so it needs no `loop`. It covers the screen behind the page, invisible (opacity 0, no
// taps), so that Blink's size rule holds too. The cost, on an iPhone: an unmuted video with
// sound takes the audio, so music playing on the phone pauses while a game is on.
//
// Media with sound may start only from a user gesture: the first tap on the page starts it.
// Neither the lock nor the video outlives the page being hidden (screen off, another app):
// when it shows again they are asked for again at once, and failing that on the next tap.
// <html data-awake="lock|video"> tells what holds the screen on, for tests and support.
import { sound, unlockSound } from "./buzz.js";

let wanted = false;
let lock = null;      // the WakeLockSentinel while held
let video = null;     // { element, draw, timer } once made
let asking = false;   // a wake lock request is on its way

function mark() {
  const playing = video && !video.element.paused;
  const how = lock ? "lock" : playing ? "video" : null;
  if (how) document.documentElement.dataset.awake = how;
  else delete document.documentElement.dataset.awake;
}

function held() {
  return Boolean(lock) || Boolean(video && !video.element.paused) || asking;
}

function makeVideo() {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 2;
  const paint = canvas.getContext("2d");
  let shade = 0;
  // A picture that never changes may count as a stalled stream: it changes, unseen, every second.
  const draw = () => {
    shade = 1 - shade;
    paint.fillStyle = `rgb(${shade}, ${shade}, ${shade})`;
    paint.fillRect(0, 0, 2, 2);
  };
  draw();
  const stream = canvas.captureStream();
  unlockSound();
  const audio = sound();
  if (audio && audio.createMediaStreamDestination) {
    stream.addTrack(audio.createMediaStreamDestination().stream.getAudioTracks()[0]);
  }
  const element = document.createElement("video");
  element.className = "awake";
  element.setAttribute("playsinline", "");
  element.setAttribute("aria-hidden", "true");
  element.tabIndex = -1;
  element.muted = false;
  element.srcObject = stream;
  for (const name of ["playing", "pause", "emptied"]) element.addEventListener(name, mark);
  document.body.append(element);
  return { element, draw, timer: null };
}

function playVideo() {
  if (!video) video = makeVideo();
  clearInterval(video.timer);
  video.timer = setInterval(video.draw, 1000);
  // Refused without a gesture (or while hidden): the next tap tries again.
  video.element.play().then(mark, () => {});
}

async function askLock() {
  asking = true;
  try {
    lock = await navigator.wakeLock.request("screen");
    lock.addEventListener("release", () => { lock = null; mark(); });
  } catch (error) {
    lock = null;  // refused (no gesture yet, a battery saver): the video instead
  } finally {
    asking = false;
  }
  if (!lock && wanted) playVideo();
  if (lock && video) video.element.pause();
  if (!wanted) release();
  mark();
}

function start() {
  if (!wanted || held() || document.visibilityState === "hidden") return;
  // play() must run inside the gesture itself on an iPhone: no await before it.
  if (navigator.wakeLock) askLock();
  else playVideo();
}

function release() {
  if (lock) lock.release().catch(() => {});
  lock = null;
  if (video) {
    clearInterval(video.timer);
    video.element.pause();
    for (const track of video.element.srcObject.getTracks()) track.stop();
    video.element.remove();
    video = null;
  }
  mark();
}

// wanted: whether the screen should stay on now (a game in progress on this seat's phone).
export function keepAwake(on) {
  if (on === wanted) return;
  wanted = on;
  if (!on) release();
}

// Which events carry a user gesture differs by pointer: a finger's pointerdown does not, its
// pointerup does; a click or a key always do.
for (const name of ["pointerup", "click", "keydown", "touchend"]) {
  document.addEventListener(name, start, { capture: true, passive: true });
}
document.addEventListener("visibilitychange", start);
