"""Option labels and questions say what a tap will do, naming seats, cards, dice and tokens
the way the table does, in English and Spanish."""
from __future__ import annotations

import random

import pytest

from companion.darkmoon import Setup, seat_view, start
from companion.darkmoon.api import apply_event
from companion.lang import view_text
from companion.lang.options import blocked_label, option_label, question
from companion.lang.words import Words

NAMES = ("Ana", "Ben", "Cai", "Dee")


@pytest.fixture(params=["en", "es"])
def words(request):
    """Words for a real four-player seat view: four players play the black task deck."""
    g = apply_event(None, start(Setup(NAMES), random.Random(1))[0])
    return Words(request.param, seat_view(g, 0))


EXPECTED = [
    # decision, option, English, Spanish
    ("action", ["repair", "shield"], "Repair the shield", "Reparar el escudo"),
    ("action", ["vote", 2], "Call a vote on Cai", "Llamar a votación sobre Cai"),
    ("action", ["order", 1], "Issue an order to Ben", "Dar una orden a Ben"),
    ("action", ["sabotage", "fatigue"], "Sabotage Life Support", "Sabotear el Soporte vital"),
    ("action", ["reveal"], "Reveal as Infected", "Revelarse como infectado"),
    ("take_dice", ["take", 2, 1], "Take 2 strong dice and 1 weak die",
     "Coger 2 dados fuertes y 1 dado débil"),
    ("take_dice", ["take", 0, 0], "Take no dice", "No coger dados"),
    ("roll_dice", ["roll", 1, 1, 1], "Roll 1 strong die, 1 weak die and the commander die",
     "Tirar 1 dado fuerte, 1 dado débil y el dado de Comandante"),
    ("discard", ["discard", 0, 3, 0], "Discard 3 weak dice", "Descartar 3 dados débiles"),
    ("participation", ["in"], "IN", "DENTRO"),
    ("participation", ["out"], "OUT", "FUERA"),
    # Four players: the black deck, two harder than the printed silver value.
    ("task", ["task", "shield_6"],
     "Shield Malfunction: difficulty 8, consequence 3 — suspicious, success bonus",
     "Avería de Escudo: dificultad 8, consecuencia 3 — sospechosa, bonificación por éxito"),
    ("task", ["task", "mandatory_quarantine"], "Mandatory Quarantine", "Cuarentena obligatoria"),
    ("event", ["event", "lockdown"], "Lockdown (2 cubes)", "Confinamiento (2 cubos)"),
    ("bonus", ["outpost", "hangar_bay"], "Remove the Hangar Bay outpost token",
     "Retirar la ficha de Puesto de avanzada Hangar"),
    ("remove_token", ["fatigue", "luba"], "Remove Luba Zheleznyak's fatigue token",
     "Retirar la ficha de Fatiga de Luba Zheleznyak"),
    ("power_token", ["outpost", "command"], "Place the Command outpost token",
     "Colocar la ficha de Puesto de avanzada Mando"),
    ("bonus", ["skip"], "No bonus", "Sin bonificación"),
    ("vote_target", ["target", 3], "Vote on Dee", "Votar sobre Dee"),
    ("pass_command", ["player", 1], "Give the command to Ben", "Dar el mando a Ben"),
    ("blood_testing", ["player", 2], "Quarantine Cai", "Poner en cuarentena a Cai"),
    ("damage_kind", ["none"], "Draw nothing", "No robar nada"),
    ("resupply", ["fatigue"], "Remove every fatigue token", "Retirar todas las fichas de Fatiga"),
]


@pytest.mark.parametrize("decision, option, en, es", EXPECTED,
                         ids=[f"{d}-{'-'.join(map(str, o))}" for d, o, _, _ in EXPECTED])
def test_option_labels(words, decision, option, en, es):
    assert option_label(words, decision, option) == (en if words.lang == "en" else es)


def test_a_submit_label_shows_the_faces_and_their_total(words):
    you = {"rolled": [["strong", 4], ["weak", -2], ["commander", 5]]}
    one = option_label(words, "submit", ["submit", 1], you)
    many = option_label(words, "submit", ["submit", 0, 2], you)
    if words.lang == "en":
        assert one == "Submit -2 weak"
        assert many == "Submit +4 strong and +5 commander (total +9)"
    else:
        assert one == "Enviar -2 débil"
        assert many == "Enviar +4 fuerte y +5 de Comandante (total +9)"


def test_interference_labels_say_what_goes_back_on_top_and_what_is_discarded(words):
    data = {"drawn": ["acceptable_loss", "outpost_3"]}
    label = option_label(words, "interference", ["keep", "outpost_3"], data=data)
    if words.lang == "en":
        assert label == "Return on top: Outpost Malfunction; discard Acceptable Loss"
    else:
        assert label == ("Devolver encima: Avería del Puesto de avanzada; "
                         "descartar Pérdida aceptable")


def test_blocked_options_say_why(words):
    label = blocked_label(words, "action", ["lone_wolf"], "blocked_by:hangar_bay")
    quarantined = blocked_label(words, "action", ["repair", "outpost"], "quarantined")
    if words.lang == "en":
        assert label == "Lone Wolf — blocked by the Hangar Bay token"
        assert quarantined == "Repair the outpost — not while in quarantine"
    else:
        assert label == "Lobo solitario — bloqueada por la ficha Hangar"
        assert quarantined == "Reparar el puesto de avanzada — no disponible en cuarentena"


def test_questions_name_what_is_asked_about(words):
    en = words.lang == "en"
    assert question(words, {"decision": "agree", "data": {"card": "failure_to_lead",
                                                          "target": 2}}) == (
        "Failure to Lead: give the Commander card to Cai?" if en
        else "Falta de liderazgo: ¿das la carta de Comandante a Cai?")
    assert question(words, {"decision": "order_response", "data": {"by": 3}}) == (
        "Dee gives you an order" if en else "Dee te da una orden")
    assert question(words, {"decision": "roll_dice",
                            "data": {"purpose": "repair", "area": "shield"}}) == (
        "Repair Shield Control: choose up to three dice to roll" if en
        else "Reparar Control de Escudos: elige hasta tres dados para tirar")
    assert question(words, {"decision": "vote", "data": {"target": 1},
                            "chosen": ["weak"]}) == (
        "You have voted; waiting for the others" if en
        else "Ya has votado; esperando a los demás")
    assert question(words, None) == ""


def test_the_first_decision_of_a_game_reaches_the_commanders_phone():
    g = apply_event(None, start(Setup(NAMES), random.Random(1))[0])
    view = seat_view(g, g.commander)
    view["log"] = []
    text = view_text(view, "en")
    assert text["decision"] == ("Choose the Event to place; the other goes to the bottom "
                                "of the deck unseen")
    assert len(text["options"]) == 2 and all("cubes)" in o for o in text["options"])
    assert text["banner"] == f"Waiting for {NAMES[g.commander]} to choose the next Event"
