"""English and Spanish for every screen: the kiosk, the phone pages and the board page.

Catalogues are flat JSON files, one folder per language with the same files and keys in each:
`kiosk.json` (the kiosk's own words), `phone.json` (the phone pages' fixed words) and
`game.json` (cards, characters, facts, options and decisions). Keys are prefixed by their file
(`kiosk.`, `phone.`, `game.`). The merged catalogue is served to the phone pages, and used here
to turn facts, options and waiting decisions into sentences, so every screen says the same.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

LANGS = ("en", "es")
HERE = Path(__file__).parent


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    merged: dict[str, str] = {}
    for path in sorted((HERE / lang).glob("*.json")):
        merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def text(lang: str, key: str, **values) -> str:
    """The sentence `key` in `lang`, with {placeholders} filled in."""
    return catalogue(lang)[key].format(**values)


def view_text(view: dict, lang: str) -> dict:
    """The sentences a screen shows for a public or seat view (to be completed)."""
    return {"banner": "", "log": [], "options": [], "blocked": [], "mirror": []}
