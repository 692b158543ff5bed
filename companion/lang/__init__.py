"""English and Spanish for every screen: the kiosk, the phone pages and the board page.

Catalogues are flat JSON files, one folder per language with the same files and keys in each:
`kiosk.json` (the kiosk's own words), `phone.json` (the phone pages' fixed words) and
`game.json` (cards, characters, facts, options and decisions). Keys are prefixed by their file
(`kiosk.`, `phone.`, `game.`). The merged catalogue is served to the phone pages, and used here
to turn facts, options and waiting decisions into sentences, so every screen says the same.
"""
from __future__ import annotations

from .catalogues import LANGS, catalogue, text
from .screen import view_text
from .words import label

__all__ = ["LANGS", "catalogue", "label", "text", "view_text"]
