"""English and Spanish for every screen: the kiosk, the phone pages and the board page.

Catalogues are flat JSON files (`en.json`, `es.json`, the same keys in both), served as they
are to the phone pages for their fixed words, and used here to turn the game's facts, options
and waiting decisions into sentences, so that both front ends say the same thing.
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
    return json.loads((HERE / f"{lang}.json").read_text(encoding="utf-8"))


def text(lang: str, key: str, **values) -> str:
    """The sentence `key` in `lang`, with {placeholders} filled in."""
    return catalogue(lang)[key].format(**values)


def view_text(view: dict, lang: str) -> dict:
    """The sentences a screen shows for a public or seat view (to be completed)."""
    return {"banner": "", "log": [], "options": [], "blocked": [], "mirror": []}
