"""A stream payload's JSON, with each log fact encoded once for every view that carries it.

After a command the seven phones, the board and the host each get a payload holding the same
sixty public log facts (and a seat's private ones); encoding those facts again for every view
was most of a payload's encoding time on a Pi. Each fact's JSON is kept, keyed by the fact
object (held in the entry, so its id cannot be reused while cached: log facts are never
changed once made), and spliced into the rest of the payload's JSON. The bytes are exactly
those `json.dumps(payload, separators=(",", ":"), ensure_ascii=False)` gives.
"""
from __future__ import annotations

import json
import secrets

_FACTS: dict[int, tuple[dict, str]] = {}
_MOST_FACTS = 4096
# Stand-ins for the two fact lists while the rest is encoded; no name or text a player types
# can hold them (a NUL and a random word chosen at start).
_HOLE = "\x00" + secrets.token_hex(16)
_LOG, _PRIVATE = _HOLE + "log", _HOLE + "private"


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _facts(facts: list) -> str:
    parts = []
    for fact in facts:
        hit = _FACTS.get(id(fact))
        if hit is None or hit[0] is not fact:
            if len(_FACTS) >= _MOST_FACTS:
                _FACTS.clear()
            hit = _FACTS[id(fact)] = (fact, _dumps(fact))
        parts.append(hit[1])
    return "[" + ",".join(parts) + "]"


def payload_json(payload: dict) -> bytes:
    view = payload.get("view")
    if not isinstance(view, dict) or not isinstance(view.get("log"), list):
        return _dumps(payload).encode()
    holes = {_LOG: view["log"]}
    shell = {**view, "log": _LOG}
    you = view.get("you")
    if isinstance(you, dict) and isinstance(you.get("private_log"), list):
        holes[_PRIVATE] = you["private_log"]
        shell["you"] = {**you, "private_log": _PRIVATE}
    text = _dumps({**payload, "view": shell})
    for hole, facts in holes.items():
        text = text.replace(_dumps(hole), _facts(facts), 1)
    return text.encode()
