"""The leak detector: what a view may show of the game's secrets. Used by the random-games
test on the rules' views and by the secrecy test on what the kiosk and the web server send."""
from __future__ import annotations

import json
import re

from companion.darkmoon import public_view, seat_view, visible_facts
from companion.darkmoon.data import EVENTS, TASKS

CARD_WORDS = set(TASKS) | set(EVENTS)


DIE = r'"(?:strong|weak|commander)": -?\d+'
DICE_DICT = re.compile(r"\{%s, %s, %s\}" % (DIE, DIE, DIE))


def dice_dicts(text: str) -> list[str]:
    """Every {strong, weak, commander} count in a view's JSON."""
    return DICE_DICT.findall(text)


def public_cards(g) -> set:
    """Card names anyone may see in the views right now."""
    cards = set(g.completed_events) | {g.final_event}
    if g.task is not None:
        cards.add(g.task.card)
    if g.event:
        cards.add(g.event)
    return cards


def own_cards(g, seat: int) -> set:
    """Cards in front of `seat` alone: its hand, and what its own decision shows it."""
    p = g.pending
    if p is None or seat not in p.options:
        return set()
    cards = set(g.task_drawn) | set(g.event_drawn) | set(p.data.get("drawn", []))
    return cards


def check_public_view(g, view: dict, text: str) -> None:
    assert "you" not in view
    for i, s in enumerate(g.seats):
        entry = view["seats"][i]
        assert "dice" not in entry, "dice counts of a seat on the public board"
        assert entry["status"] == (s.status if s.revealed else None)
    # dice counts: the pool's and the spent dice's, nobody's behind a screen
    assert dice_dicts(text) == [json.dumps(view[k]) for k in ("pool", "spent", "lost")]
    words = set(WORDS.findall(text))
    hidden = {s.status for s in g.seats if not s.revealed}
    assert not words & hidden, f"a hidden status on the public board: {words & hidden}"
    # The Table adds the public log: a card a public fact named (a chosen task) was shown.
    log = view.get("log", [])
    assert not any("to" in f for f in log), "a private fact in the public log"
    named = {f["card"] for f in log if isinstance(f.get("card"), str)}
    shown = words & (CARD_WORDS - public_cards(g) - named)
    assert not shown, f"cards on the public board: {shown}"
    if view["waiting"] is not None:
        assert set(view["waiting"]) <= {"decision", "seats", "chosen", "voters", "target",
                                        "vote_kind"}
    # Shadow Corporation: the corporation roll in progress is its roller's alone.
    if g.corporation:
        assert json.dumps(g.corporation) not in text, "a corporation roll on the public board"


WORDS = re.compile(r"[a-z][a-z_0-9]*")  # every word of a view's JSON, keys and text alike


class Secrets:
    """What each seat must not see: every card a private fact showed only to others (each
    seat's drawn and discarded tasks and events), gathered as the facts arrive."""

    def __init__(self, players: int):
        self.players = players
        self.cards = [set() for _ in range(players)]   # viewer -> cards private to others
        self.facts = 0

    def add(self, facts: list) -> None:
        for f in facts:
            if "to" not in f:
                continue
            self.facts += 1
            if f["k"] in ("tasks_drawn", "task_discarded", "events_drawn", "event_bottom",
                          "event_discarded"):
                cards = f["cards"] if "cards" in f else [f["card"]]
                for viewer in range(self.players):
                    if viewer not in f["to"]:
                        self.cards[viewer].update(cards)
            else:
                # facts private for another reason: a status, a roll, a die swap, the rules
                # choosing the only dice a seat could roll; the view checks below look for
                # the state they describe
                assert f["k"] in ("status_dealt", "status_shown", "rolled", "infected_team",
                                  "demoralized", "ruled", "corporation_rolled",
                                  "corporation_unseen", "threat_dealt"), f


def check_seat_view(g, seat: int, view: dict, text: str, secrets: Secrets) -> None:
    """Nothing private to another seat, and no hidden state of another seat, in `seat`'s
    screen."""
    me = g.seats[seat]
    you = view["you"]
    assert you["seat"] == seat and you["status"] == me.status and you["dice"] == me.dice
    assert dice_dicts(text) == [json.dumps(view[k]) for k in ("pool", "spent", "lost")] + [
        json.dumps(you["dice"])], "dice counts of another seat in a seat's view"
    for i, s in enumerate(g.seats):
        assert view["seats"][i]["status"] == (s.status if s.revealed else None)
    if g.has("telepathic_infected") and me.infected:
        assert you["infected_team"] == [i for i, s in enumerate(g.seats) if s.infected]
    else:
        assert you["infected_team"] == []
    p = g.pending
    if you["decision"] is not None:
        assert p is not None and seat in p.options
        if p.simultaneous:  # never another seat's ballot
            assert you["decision"]["chosen"] == (list(p.answers[seat])
                                                 if seat in p.answers else None)
    # The Threats module: a seat's view holds its own threat card and no other's.
    assert you["threat"] == g.threats.get(seat)
    if "threats" in view:
        assert view["threats"]["cards"] is None or g.outcome is not None
    rolling = g.corporation and p is not None and p.kind == "corporation"
    if rolling and seat not in p.options:
        assert you["corporation"] == [] and json.dumps(g.corporation) not in text, \
            f"seat {seat} can see another seat's corporation roll"
    elif rolling:
        assert you["corporation"] == g.corporation
    words = set(WORDS.findall(text))
    leaked = words & secrets.cards[seat] - public_cards(g) - own_cards(g, seat)
    assert not leaked, f"seat {seat} can see cards private to others: {leaked}"
    # the other seats' hidden state, looked for directly
    for t, other in enumerate(g.seats):
        if t == seat:
            continue
        if other.rolled and [list(d) for d in other.rolled] != you["rolled"]:
            assert json.dumps([list(d) for d in other.rolled]) not in text, \
                f"seat {seat} can see seat {t}'s roll"
        if not other.revealed and other.status != me.status:
            assert other.status not in words, f"seat {seat} can see seat {t}'s status"


def check_facts(facts: list, players: int) -> None:
    """visible_facts hands each audience only its own private facts."""
    for seat in list(range(players)) + [None]:
        for f in visible_facts(facts, seat, over=False):
            assert "to" not in f or seat in f["to"], (seat, f)
        assert len(visible_facts(facts, seat, over=False)) == sum(
            1 for f in facts if "to" not in f or (seat is not None and seat in f["to"]))
    assert visible_facts(facts, None, over=True) == facts


def check_secrecy(g, secrets: Secrets) -> None:
    view = public_view(g)
    check_public_view(g, view, json.dumps(view))
    for seat in range(g.players):
        view = seat_view(g, seat)
        check_seat_view(g, seat, view, json.dumps(view), secrets)


def check_public_facts(g, event: dict) -> None:
    """A fact everyone sees never names a status still hidden (before the game is over)."""
    if g.outcome is not None:
        return
    hidden = {s.status for s in g.seats if not s.revealed}
    for f in event["facts"]:
        if "to" not in f:
            assert not set(WORDS.findall(json.dumps(f))) & hidden, \
                f"public fact {f} names a hidden status"


def fair_secrets(room) -> list[str]:
    """What fair dealing keeps secret until the game is over (companion/chance/fair.py): the game's
    secret and the bytes it was dealt from (the phones' revealed values and the fillers),
    the next game's secret and any value already revealed for it."""
    pending = room.lobby["fair"]
    hidden = [pending["secret"], *(v for v in pending["values"] if v is not None)]
    if room.table is not None and room.table.fair is not None:
        hidden += [room.table.fair.secret, *room.table.fair.contributions]
    return hidden


def check_fair_secrets(text: str, hidden: list[str]) -> None:
    """None of them, in either case, nor a 16-digit piece of one (a wrapped line)."""
    folded = text.lower()
    for secret in hidden:
        assert secret[:16] not in folded and secret[-16:] not in folded, \
            "a fair-dealing secret went out before the game was over"
