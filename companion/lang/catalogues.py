"""The catalogues: one flat JSON dictionary per language, merged from the language's files."""
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
