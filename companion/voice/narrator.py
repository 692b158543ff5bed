"""The narrator: what the table hears. It is given the public view only (what the kiosk and
/board show), never a seat's, so it cannot say a secret: each new fact of the public log is
said in the room's language, in the same sentence the kiosk's log prints.

It says what is new since the last fact it said (a fact is the same object from view to
view), so nothing is said twice; at its start it says nothing of what came before (a
restart does not read the game out again). A voice that cannot speak is said once on the
kiosk and the phones, in words: how to turn it on, or that the sound output failed."""
from __future__ import annotations

from ..core.table import PUBLIC
from ..lang.screen import view_text
from .speech import Voice, now_ms


SETTING = "voice"  # the table's choice, kept in the store with the room: {"on": bool}


class Narrator:
    def __init__(self, room, voice: Voice):
        self.room = room
        self.voice = voice
        self._last = None  # the last public fact said (or passed over at the start)
        self._unlisten = None
        self.speaking = (room.store.setting(SETTING) or {}).get("on", True)

    async def switch(self) -> None:
        """The voice on or off (the kiosk's key): the choice saved first, kept across a
        restart, and said on the kiosk and the phones. StorageFailed (nothing changed) if it cannot be saved."""
        on = not self.speaking
        await self.room.write(self.room.store.put_setting, SETTING, {"on": on})
        self.speaking = on
        self.room.notice("voice_on" if on else "voice_off")

    def repeat(self) -> None:
        """The last thing said, again (the kiosk's key), if the voice is on."""
        if self.speaking and self.voice.last is not None:
            self.voice.say(*self.voice.last)

    def start(self) -> None:
        log = self._log()
        self._last = log[-1] if log else None
        if self.voice.missing:
            self.room.notice("voice_missing")
        self.voice.went_off = lambda: self.room.notice("voice_failed")
        self.voice.start()
        self._unlisten = self.room.listen(PUBLIC, self._heard)

    async def stop(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        await self.voice.stop()

    def _log(self) -> list:
        view = self.room.public_view()
        return (view or {}).get("log") or []

    def _heard(self, _audience, payload) -> None:
        if payload is not None:  # a one-off message (a refusal), not a new view
            return
        if not self.speaking:  # off at the table's wish: what happens meanwhile is not said
            log = self._log()
            self._last = log[-1] if log else None
            return
        event_ms = now_ms()
        view = self.room.public_view()
        if view is None:
            return
        log = view.get("log") or []
        new = self._new(log)
        if not new:
            return
        self._last = log[-1]
        lines = view_text(view, self.room.lang)["log"]
        for said in lines[len(log) - new:]:
            self.voice.say(said, self.room.lang, event_ms)

    def _new(self, log: list) -> int:
        """How many facts at the end of `log` come after the last one said."""
        for back, fact in enumerate(reversed(log)):
            if fact is self._last:
                return back
        return len(log)  # a new game (the voice keeps only its newest lines)
