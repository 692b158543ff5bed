"""The game as a killed product left it on disk, read from a copy of its store's files (taken
before the restart recovers them). Replaying the log through the Table plays every stored
command again with its recorded dice, so a state the rules cannot reach fails to load."""
from __future__ import annotations

import json
from pathlib import Path

from companion.core.store import EventStore
from companion.core.table import Table


def plain(value):
    """As it looks after a trip through JSON (tuples become lists, int keys strings)."""
    return json.loads(json.dumps(value))


class Stored:
    def __init__(self, path: Path):
        self.store = EventStore(path)
        self.room: dict = self.store.setting("room")
        lobby = self.room["lobby"]
        self.game_id: int | None = lobby["game_id"] if lobby else None
        self.commands: list[list[dict]] = []
        self.seed = None
        if self.game_id is not None:
            self.commands = self.store.load(self.game_id)
            self.seed = self.store.meta(self.game_id).get("seed")
            for state_id, records in enumerate(self.commands):  # one event per command
                assert [e["state_id"] for e in records] == [state_id], (state_id, records)

    @property
    def last(self) -> int:
        """The state id of the last stored command (0: only the deal)."""
        return len(self.commands) - 1

    def event(self, state_id: int) -> dict:
        return self.commands[state_id][0]

    def views_at(self, state_id: int, players: int) -> dict:
        """What each audience is shown at `state_id`: the board and host see the public
        view, each seat its own."""
        events = [e for records in self.commands[:state_id + 1] for e in records]
        table = Table(self.store, self.game_id, events, self.seed)
        public = plain(table.public_view())
        views = {"board": public, "host": public}
        views.update({seat: plain(table.seat_view(seat)) for seat in range(players)})
        return views

    def close(self) -> None:
        self.store.close()
