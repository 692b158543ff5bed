"""JSON as the streams send it (UTF-8), with each log fact encoded once for every view that
carries it.

After a command the seven phones, the board and the host each get a payload holding the same
sixty public log facts (and a seat's private ones); encoding those facts again for every view
was most of a payload's encoding time on a Pi. Each fact's JSON is kept, keyed by the fact
object (held in the entry, so its id cannot be reused while cached: log facts are never
changed once made), and so is each log line's, keyed by its words; companion/web/payloads.py
puts them into the payloads' JSON.
"""
from __future__ import annotations

import json

_FACTS: dict[int, tuple[dict, bytes]] = {}
_MOST_FACTS = 4096
_SAID: dict[str, bytes] = {}  # a log line's JSON, by its words
_MOST_SAID = 8192


# JSON as every payload is sent: compact, and UTF-8 rather than escapes. One encoder for
# every call: json.dumps with options builds a new encoder each time.
dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_string = json.encoder.encode_basestring


def string_json(text: str) -> bytes:
    """A string's JSON as sent (what dumps gives for a str), without the encoder's checks."""
    return _string(text).encode()


def facts_json(facts: list[dict]) -> list[bytes]:
    """Each log fact's JSON as sent, encoded once for every view that carries it."""
    known = _FACTS
    return [hit[1] if (hit := known.get(id(fact))) is not None and hit[0] is fact
            else _fact_json(fact) for fact in facts]


def _fact_json(fact: dict) -> bytes:
    if len(_FACTS) >= _MOST_FACTS:
        _FACTS.clear()
    encoded = dumps(fact).encode()
    _FACTS[id(fact)] = (fact, encoded)
    return encoded


def sentences_json(said: list[str]) -> list[bytes]:
    """Each log line's JSON as sent, encoded once for every view that shows it (the lines are
    the same strings from view to view: companion/lang/screen.py keeps them)."""
    known = _SAID
    if len(known) >= _MOST_SAID:
        known.clear()
    return [known.get(line) or known.setdefault(line, string_json(line)) for line in said]
