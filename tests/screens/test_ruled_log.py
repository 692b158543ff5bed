"""The rules at hand, on the kiosk: when the rules answer a decision by themselves,
the log pane says which rule did it, in the kiosk's language, at the Pi's 120x36."""
from __future__ import annotations

import pytest

from companion.lang.facts import describe
from companion.lang.words import Words

from .conftest import SIZE, kiosk, region_text, settle
from table_play import advance, seated_room


def has_ruled(view) -> bool:
    return any(f["k"] == "ruled" for f in view["log"])


@pytest.mark.parametrize("lang, rule_name", [("en", "Die Limits rule"),
                                             ("es", "regla de Límite de dados")])
async def test_the_log_pane_names_the_rule_that_answered(tmp_path, lang, rule_name):
    # Every seat starts at its die limit: the first player is not asked to take dice.
    room = await seated_room(tmp_path, seed=7, lang=lang)
    view = await advance(room, has_ruled)
    fact = next(f for f in view["log"] if f["k"] == "ruled")
    assert fact["rule"] == "at_die_limit"
    sentence = describe(Words(lang, view), fact)
    assert rule_name in sentence
    app = kiosk(room)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        pane = " ".join(region_text(app, "#log").replace("│", " ").split())
        assert sentence in pane
