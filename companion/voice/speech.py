"""The narrator's voice: espeak-ng speaks each line into aplay, on the Pi's own sound (ALSA:
Raspberry Pi OS Lite has no desktop sound server), or, with `--voice-out DIR`, into a WAV
file kept in DIR with a line of `DIR/voice.jsonl` saying what it is and when its first
sample came.

Nothing here runs on the event loop's time: espeak-ng and aplay are child processes awaited
asynchronously, and the file writes go to a thread. One line is spoken at a time; lines that
come while one is spoken wait (one moment's lines are said as one utterance), and when more
than MOST_WAITING wait, those of earlier moments are dropped: the table hears the newest
moment whole, never a backlog. A missing
program, no sound device or a speech process that dies turns the voice off with one log
line; the game goes on."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import struct
import time
from collections import deque
from dataclasses import dataclass

log = logging.getLogger(__name__)

VOICES = {"en": "en-us", "es": "es"}  # espeak-ng's voices for the room's languages
WORDS_PER_MINUTE = 165
WAV_HEADER = 44  # espeak-ng's: RIFF, a 16-byte fmt chunk, then the data chunk's header
MOST_WAITING = 3  # lines kept waiting while one is spoken; earlier moments' are dropped


def now_ms() -> float:
    """The voice's clock (monotonic, milliseconds): an event's time and its audio's."""
    return time.monotonic() * 1000


@dataclass
class Line:
    text: str
    lang: str
    event_ms: float


class Voice:
    """Says lines, one at a time, in order, off the loop. `out_dir`: keep each line's WAV
    there (and its entry in voice.jsonl) instead of playing it. `problem`: why the voice is
    off (None while it works), in words for the kiosk and the journal."""

    def __init__(self, out_dir: str | None = None, *, espeak: str | None = None,
                 player: str | None = None):
        self.out_dir = out_dir
        self.espeak = espeak or shutil.which("espeak-ng")
        self.player = None if out_dir else (player or shutil.which("aplay"))
        self.problem: str | None = None
        self.missing = False  # off for want of a program (not a failing sound output)
        self.went_off = None  # called once if the voice goes off while the game runs
        if self.espeak is None:
            self.problem = "espeak-ng is not installed (sudo apt install espeak-ng)"
        elif out_dir is None and self.player is None:
            self.problem = "aplay is not installed (sudo apt install alsa-utils)"
        self.missing = self.problem is not None
        self.dropped = 0  # lines dropped for newer ones
        self.spoken = 0  # utterances rendered (and played, or kept)
        self.last: tuple[str, str] | None = None  # (what was said, its language)
        self._waiting: deque[Line] = deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        if self.problem:
            log.warning("voice off: %s", self.problem)

    @property
    def on(self) -> bool:
        return self.problem is None

    def start(self) -> None:
        if self.on and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._speak_all())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    def say(self, text: str, lang: str, event_ms: float | None = None) -> None:
        """Queue a line (returns at once)."""
        if not self.on or not text:
            return
        self._waiting.append(Line(text, lang, now_ms() if event_ms is None else event_ms))
        # stale: an earlier moment's lines while a later one waits (one moment's own lines,
        # a vote's reveal seat by seat, are said together)
        newest = self._waiting[-1].event_ms
        while len(self._waiting) > MOST_WAITING and self._waiting[0].event_ms != newest:
            self._waiting.popleft()
            self.dropped += 1
        self._wake.set()

    async def idle(self) -> None:
        """Until every line said so far has been spoken (or the voice went off)."""
        while self.on and self._task is not None and (self._waiting or self._busy):
            await asyncio.sleep(0.02)

    _busy = False

    async def _speak_all(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._waiting and self.on:
                # one moment's lines in one utterance: one espeak-ng start, not one a line
                lines = [self._waiting.popleft()]
                while self._waiting and (self._waiting[0].event_ms, self._waiting[0].lang) \
                        == (lines[0].event_ms, lines[0].lang):
                    lines.append(self._waiting.popleft())
                self._busy = True
                try:
                    await self._speak(lines)
                except OSError as error:
                    self._off(f"speech failed ({error})")
                finally:
                    self._busy = False

    async def _speak(self, lines: list[Line]) -> None:
        self.spoken += 1
        first = lines[0]
        said = " ".join(sentence(line.text) for line in lines)
        self.last = (said, first.lang)
        espeak = [self.espeak, "-v", VOICES.get(first.lang, "en-us"),
                  "-s", str(WORDS_PER_MINUTE), "--stdout", "--", said]
        if self.out_dir is None:  # straight into aplay: it sounds as espeak-ng speaks
            await self._play(espeak)
            return
        name = f"{self.spoken:05d}.wav"
        heard = await self._render(espeak)
        if heard is None:
            return
        sound, first_ms = heard
        ready = now_ms()
        await asyncio.to_thread(_write, os.path.join(self.out_dir, name), sound)
        entry = {"text": said, "lines": [line.text for line in lines], "lang": first.lang,
                 "file": name, "event_ms": round(first.event_ms, 1),
                 "first_sample_ms": round(first_ms, 1), "ready_ms": round(ready, 1)}
        await asyncio.to_thread(_append, os.path.join(self.out_dir, "voice.jsonl"), entry)

    async def _render(self, argv: list[str]) -> tuple[bytes, float] | None:
        """espeak-ng's WAV, read as it comes, and when its first sample came."""
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        chunks, size, first = [], 0, None
        try:
            while chunk := await proc.stdout.read(1 << 16):
                chunks.append(chunk)
                size += len(chunk)
                if first is None and size > WAV_HEADER:
                    first = now_ms()
            err = await proc.stderr.read()
            await proc.wait()
        except asyncio.CancelledError:  # stopped mid-line: no voice left talking after us
            proc.kill()
            await proc.wait()
            raise
        if not self._ended_well(argv[0], proc.returncode, err) or first is None:
            return None
        return _sized(b"".join(chunks)), first

    async def _play(self, argv: list[str]) -> None:
        read, write = os.pipe()
        try:
            speak = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=write,
                stderr=asyncio.subprocess.PIPE)
            play = await asyncio.create_subprocess_exec(
                self.player, "-q", stdin=read, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE)
        finally:
            os.close(read)
            os.close(write)
        try:
            (_, spoke), (_, played) = await asyncio.gather(speak.communicate(),
                                                          play.communicate())
        except asyncio.CancelledError:
            for proc in (speak, play):
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            raise
        # the player first: a player that died leaves espeak-ng a broken pipe, not a reason
        if self._ended_well(self.player, play.returncode, played):
            self._ended_well(argv[0], speak.returncode, spoke)

    def _ended_well(self, program: str, returncode: int, err: bytes) -> bool:
        if returncode == 0:
            return True
        why = err.decode(errors="replace").strip().splitlines()[-1:] or [""]
        self._off(f"{os.path.basename(program)} failed ({why[0] or returncode})")
        return False

    def _off(self, why: str) -> None:
        self.problem = why
        self._waiting.clear()
        log.warning("voice off: %s", why)
        if self.went_off is not None:
            self.went_off()


def sentence(text: str) -> str:
    """A line ended as a sentence, so the voice pauses between a moment's lines."""
    return text if text.endswith((".", "!", "?", ":")) else text + "."


def _sized(wav: bytes) -> bytes:
    """A streamed WAV with its real sizes: espeak-ng writes "unknown" (2 GB) in the header
    when it writes to a pipe."""
    if len(wav) < WAV_HEADER or wav[36:40] != b"data":
        return wav
    return (wav[:4] + struct.pack("<I", len(wav) - 8) + wav[8:40]
            + struct.pack("<I", len(wav) - WAV_HEADER) + wav[WAV_HEADER:])


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as out:
        out.write(data)


def _append(path: str, entry: dict) -> None:
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")
