"""`darkmoon-companion replay`: a stored game as people read it, for rules work and support.

Without a file it finds the table's own: DATA_DIR/games.db, else the demo's DATA_DIR/demo.db.
It prints who played, where the board stands and the log in words (`--json`: the public view
as the kiosk gets it). A file that is not a games file, or a game that does not replay, is
said in one sentence, never a traceback.
"""
from __future__ import annotations

import json
import os
import sqlite3
import sys

from ..darkmoon import RulesError
from ..lang import text, view_text
from ..core.store import EventStore, StoreError
from ..core.table import Table

FILES = ("games.db", "demo.db")  # the kiosk's own file first, then the demo's


def add_command(commands) -> None:
    rep = commands.add_parser("replay", help="rebuild a stored game and print it in words")
    rep.add_argument("path", nargs="?", default=None,
                     help="the game's SQLite file (default: DATA_DIR/games.db, else demo.db)")
    rep.add_argument("--data-dir", default="data", help="where to look without a file "
                                                        "(default ./data)")
    rep.add_argument("--game", type=int, default=None, help="game id (default: the latest)")
    rep.add_argument("--json", action="store_true", help="the public view as JSON")
    rep.add_argument("--lang", default="en", choices=("en", "es"))


def replay_command(args) -> int:
    path = args.path or next((p for p in (os.path.join(args.data_dir, f) for f in FILES)
                              if os.path.exists(p)), None)
    if path is None:
        return _refuse(f"no game file in {args.data_dir} (looked for {', '.join(FILES)}); "
                       "name one: darkmoon-companion replay FILE")
    if not os.path.exists(path):
        return _refuse(f"no such file: {path}")
    try:
        store = EventStore(path)
    except (sqlite3.Error, StoreError) as error:
        return _refuse(f"{path} is not a Dark Moon games file ({error})")
    try:
        table = Table.resume(store, args.game)
    except (sqlite3.Error, StoreError, RulesError, KeyError, TypeError, ValueError) as error:
        return _refuse(f"cannot replay {path}: {error} (a damaged file, or one stored under "
                       "other rules)")
    finally:
        store.close()
    if table is None:
        return _refuse(f"{path} holds no game")
    view = table.public_view()
    if args.json:
        print(json.dumps(view, indent=2, ensure_ascii=False))
    else:
        print(summary(table.game_id, view, args.lang))
    return 0


def summary(game_id: int, view: dict, lang: str) -> str:
    said = view_text(view, lang)
    seats = ", ".join(f"{s['seat'] + 1} {s['name']}" for s in view["seats"])
    lines = [text(lang, "kiosk.replay.title", game=game_id, players=view["players"],
                  seats=seats),
             text(lang, "kiosk.replay.board", turn=view["turn"], shield=view["shield"]["tokens"],
                  outpost=len(view["outpost"]["tokens"]), fatigue=len(view["fatigue"]["tokens"]),
                  state=view["state_id"])]
    if said.get("banner"):
        lines.append(said["banner"])
    lines.append("")
    lines += [f"  {sentence}" for sentence in said.get("log", [])]
    return "\n".join(lines)


def _refuse(message: str) -> int:
    print(message, file=sys.stderr)
    return 2
