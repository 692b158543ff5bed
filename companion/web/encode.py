"""JSON as the streams send it, with each log fact encoded once for every view that carries it.

After a command the seven phones, the board and the host each get a payload holding the same
sixty public log facts (and a seat's private ones); encoding those facts again for every view
was most of a payload's encoding time on a Pi. Each fact's JSON is kept, keyed by the fact
object (held in the entry, so its id cannot be reused while cached: log facts are never
changed once made), and spliced into the payload's JSON by companion/web/payloads.py.
"""
from __future__ import annotations

import json

_FACTS: dict[int, tuple[dict, str]] = {}
_MOST_FACTS = 4096


# JSON as every payload is sent: compact, and UTF-8 rather than escapes. One encoder for
# every call: json.dumps with options builds a new encoder each time.
dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
# A string's JSON (what dumps gives for a str), without the encoder's checks of its type.
string_json = json.encoder.encode_basestring


def fact_json(fact: dict) -> str:
    """One log fact's JSON, encoded once for every view that carries it."""
    hit = _FACTS.get(id(fact))
    if hit is None or hit[0] is not fact:
        if len(_FACTS) >= _MOST_FACTS:
            _FACTS.clear()
        hit = _FACTS[id(fact)] = (fact, dumps(fact))
    return hit[1]
