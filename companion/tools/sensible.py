"""The sensible bot: plays its status as a person would, so that `simulate`'s win rates say
something about the game rather than about bots that do not try.

It decides from one seat's view alone: the seat payload its phone gets (the public board,
the public log and that seat's own status, dice, rolls and private facts), never the game's
state. It cannot read another seat's status because it is never handed one.

- Uninfected: go IN, submit their best dice, keep rolling a malfunction until it succeeds,
  repair the worst track, take strong dice, and vote to quarantine the most suspicious seat.
- Infected: look helpful, sabotage quietly. They go IN and submit their worst dice (now and
  then a harmless one, and now and then OUT, as a cautious player would), stop a malfunction
  early, send damage to the worst track, and vote to quarantine seats they believe Uninfected.

Suspicion is read from the public log: negative dice submitted, OUT on a malfunction, a
failed repair or lone wolf, and a revealed Infected above all.
"""
from __future__ import annotations

import random

UNINFECTED = "uninfected"
TRACKS = ("shield", "outpost", "fatigue")
QUIET = 0.25      # how often an Infected plays like an Uninfected, to stay unseen
CAUTIOUS = 0.2    # how often an Infected goes OUT of a malfunction
SUSPECT = 1.5     # suspicion above which an Uninfected votes to quarantine
# An Uninfected submits the best of up to three dice, negative only when all rolled negative
# (about 1 in 3); a sabotaging Infected almost always: a negative die is evidence, a positive
# one stronger evidence the other way.
NEGATIVE, POSITIVE = 1.0, -1.5


def sensible_choice(view: dict, rng: random.Random) -> dict:
    """The command for the decision this seat's view shows (`view["you"]["decision"]`)."""
    me = Seat(view, rng)
    decision = view["you"]["decision"]
    kind, options = decision["decision"], [tuple(o) for o in decision["options"]]
    pick = getattr(me, "choose_" + kind, None)
    option = pick(options, decision.get("data") or {}) if pick else None
    if option is None or option not in options:
        option = rng.choice(options)
    return {"decision": kind, "option": list(option)}


class Seat:
    """One seat's reading of its view, and its choices by decision kind."""

    def __init__(self, view: dict, rng: random.Random):
        self.view, self.rng = view, rng
        you = view["you"]
        self.seat = you["seat"]
        # The Company Man (a module's third side) wants the Infected found, as the Uninfected.
        self.infected = you["status"] not in (UNINFECTED, "company_man")
        self._score = None
        self.friends = set(you.get("infected_team") or ()) | ({self.seat} if self.infected
                                                                else set())
        # A quiet Infected plays like an Uninfected for this decision: now and then, and
        # always once the table's suspicion of it is high enough to cost it a vote.
        self.quiet = self.infected and (rng.random() < QUIET
                                        or self.suspicion()[self.seat] >= SUSPECT - 1)
        self.sabotage = self.infected and not self.quiet

    # --- what the view says ---

    def tokens(self, track: str) -> int:
        v = self.view
        return {"shield": v["shield"]["tokens"], "outpost": len(v["outpost"]["tokens"]),
                "fatigue": len(v["fatigue"]["tokens"])}[track]

    def worst_track(self, options) -> tuple | None:
        """The option naming the track nearest six tokens (the one an Uninfected saves)."""
        named = [o for o in options if o and o[0] in TRACKS]
        return max(named, key=lambda o: self.tokens(o[0])) if named else None

    def best_track(self, options) -> tuple | None:
        named = [o for o in options if o and o[0] in TRACKS]
        return min(named, key=lambda o: self.tokens(o[0])) if named else None

    def suspicion(self) -> dict[int, float]:
        """Each seat's suspicion from the public log (and what this seat knows of itself)."""
        if self._score is None:
            self._score = self._suspicion()
        return self._score

    def _suspicion(self) -> dict[int, float]:
        score = {s["seat"]: 0.0 for s in self.view["seats"]}
        for fact in self.view.get("log") or ():
            seat, kind = fact.get("seat"), fact.get("k")
            if seat not in score or "to" in fact:
                continue
            if kind == "submitted" and fact.get("reason") != "vote":
                score[seat] += sum(NEGATIVE if face < 0 else POSITIVE for _, face in fact["dice"])
            elif kind == "participation":
                score[seat] += 0.5 if fact["choice"] == "out" else -0.25
            elif kind in ("repair", "lone_wolf") and not fact["success"]:
                score[seat] += 0.25
        for s in self.view["seats"]:
            if s["status"] not in (None, UNINFECTED):
                score[s["seat"]] += 100  # revealed
            elif s["status"] == UNINFECTED:
                score[s["seat"]] -= 100
        score[self.seat] = -100 if not self.infected else score[self.seat]
        return score

    def believed_uninfected(self, seats) -> int:
        """Whom an Infected wants out of the way: not a friend, the least suspected."""
        score = self.suspicion()
        others = [s for s in seats if s not in self.friends] or list(seats)
        return min(others, key=lambda s: score[s])

    def most_suspect(self, seats) -> int:
        score = self.suspicion()
        others = [s for s in seats if s != self.seat] or list(seats)
        return max(others, key=lambda s: score[s])

    def rolled(self, indices) -> list[int]:
        rolled = self.view["you"]["rolled"]
        return [rolled[i][1] for i in indices]

    # --- the choices, by decision kind ---

    def threat_todo(self) -> str | None:
        """The Threats module: this seat's card, while it is active and has no token yet."""
        threats, mine = self.view.get("threats"), self.view["you"].get("threat")
        if not threats or not mine or str(self.seat) in threats["tokens"] \
                or self.view["active"] != self.seat:
            return None
        return mine

    def threat_action(self, options):
        """The action that carries out this seat's threat card now, if there is one."""
        todo = self.threat_todo()
        head = {"exposure": "expose", "retrieve_sample": "amputate",
                "isolate_specimen": "vote"}.get(todo)
        seats = [o[1] for o in options if o[0] == head and o[1] != self.seat]
        if not seats or (head != "expose" and not self.view["you"]["dice"]["weak"]):
            return None  # a RED vote needs a weak die in the fist
        pick = min(seats, key=lambda s: self.suspicion()[s]) if head == "expose" \
            else self.most_suspect(seats)
        return (head, pick)

    def choose_action(self, options, data):
        repairs = [o for o in options if o[0] == "repair"]
        threat = None if self.sabotage else self.threat_action(options)
        if threat:
            return threat
        if self.sabotage:
            if ("takeoff",) in options and self.wants_takeoff():
                return ("takeoff",)
            mild = [o for o in options if o[0] in ("pass", "lone_wolf")]
            if self.rng.random() < 0.5 and repairs:
                return self.best_track([(o[1],) + o for o in repairs])[1:]
            return self.rng.choice(mild) if mild else None
        worst = self.worst_track([(o[1],) + o for o in repairs]) if repairs else None
        if worst and self.tokens(worst[0]) >= 2:
            return worst[1:]
        score = self.suspicion()
        free = {s["seat"] for s in self.view["seats"] if not s["quarantined"]}
        votes = [o for o in options if o[0] == "vote" and o[1] in free
                 and score[o[1]] >= SUSPECT + 1]
        if votes:  # a seat the table should have quarantined already
            return max(votes, key=lambda o: score[o[1]])
        if ("takeoff",) in options and self.wants_takeoff():
            return ("takeoff",)
        if ("lone_wolf",) in options:
            return ("lone_wolf",)
        return worst[1:] if worst else None

    def choose_task(self, options, data):
        from ..darkmoon.data import TASKS
        def hardness(o):
            card = TASKS[o[1]]
            return (getattr(card, "difficulty", None) or 0) + (2 if card.suspicious else 0)
        return (max if self.sabotage else min)(options, key=hardness)

    def choose_participation(self, options, data):
        if self.infected and self.rng.random() < CAUTIOUS:
            return ("out",)
        return ("in",)

    def choose_submit(self, options, data):
        if data.get("purpose") == "malfunction" and self.threat_todo() == "act_recklessly":
            return max((o for o in options if o != ("reroll",)), key=len)  # every die
        if ("reroll",) in options:
            best = max((o for o in options if o != ("reroll",)),
                       key=lambda o: sum(self.rolled(o[1:])))
            if not self.sabotage and sum(self.rolled(best[1:])) <= 0:
                return ("reroll",)
            options = [o for o in options if o != ("reroll",)]
        if self.sabotage:
            return min(options, key=lambda o: sum(self.rolled(o[1:])))
        # The Uninfected submit every die that helps, and the fewest that hurt.
        return max(options, key=lambda o: (sum(self.rolled(o[1:])), -len(o)))

    def choose_continue(self, options, data):
        task = self.view.get("task") or {}
        short = task.get("success_total", 0) < task.get("difficulty", 0)
        if self.threat_todo() == "act_recklessly":
            return ("roll_again",)  # until every die is in
        if self.sabotage:
            return ("stop",)
        return ("roll_again",) if short else ("stop",)

    def choose_roll_dice(self, options, data):
        # ("roll", strong, weak, commander): as many dice as allowed, strong ones first
        key = (lambda o: (sum(o[1:]), o[1] + 2 * o[3]))
        if self.sabotage:
            return max(options, key=lambda o: (sum(o[1:]), -o[1]))
        return max(options, key=key)

    def choose_take_dice(self, options, data):
        # A threat card asking for a RED vote: keep one weak die in hand for it.
        red = self.threat_todo() in ("retrieve_sample", "isolate_specimen") \
            and not self.view["you"]["dice"]["weak"]
        return max(options, key=lambda o: (o[1] + o[2], red and o[2] > 0, o[1]))

    def choose_discard(self, options, data):
        # ("discard", strong, weak, commander): keep the strong dice
        return min(options, key=lambda o: (o[1] * 2 + o[2] + o[3] * 3))

    def choose_vote(self, options, data):
        target, kind = data.get("target"), data.get("kind", "quarantine")
        if kind == "clearance":
            wanted = ("strong",) if self.wants_aboard(target) else ("weak",)
        elif kind == "takeoff":
            wanted = ("strong",) if self.wants_takeoff() else ("weak",)
        else:  # quarantine or amputation: RED against a seat
            todo = {"quarantine": "isolate_specimen", "amputation": "retrieve_sample"}[kind]
            if data.get("caller") == self.seat and self.threat_todo() == todo \
                    and target != self.seat:
                return ("weak",) if ("weak",) in options else ("abstain",)
            if self.infected:
                against = target not in self.friends
            else:
                against = target != self.seat and self.suspicion()[target] >= SUSPECT
            wanted = ("weak",) if against else ("strong",)
        return wanted if wanted in options else ("abstain",)

    def choose_tie_break(self, options, data):
        vote = self.choose_vote([("strong",), ("weak",)], data)
        return options[0] if vote == ("weak",) else options[1]  # (on RED, on BLACK)

    def choose_vote_target(self, options, data):
        seats = [o[1] for o in options]
        if data.get("kind") == "clearance":
            return ("target", self.most_trusted(seats))
        target = (self.believed_uninfected(seats) if self.infected
                  else self.most_suspect(seats))
        return ("target", target)

    # --- Shadow Corporation ---

    def most_trusted(self, seats) -> int:
        """Whom this seat wants on the evacuation ship: a friend, or the least suspected."""
        score = self.suspicion()
        return min(seats, key=lambda s: (not self.infected or s not in self.friends, score[s]))

    def wants_aboard(self, seat) -> bool:
        if self.infected:
            return seat in self.friends
        return seat == self.seat or self.suspicion()[seat] < SUSPECT / 2

    def wants_takeoff(self) -> bool:
        aboard = (self.view.get("evacuation") or {}).get("cleared") or []
        if self.infected:
            return any(s in self.friends for s in aboard)
        return bool(aboard) and all(self.wants_aboard(s) for s in aboard)

    def choose_corporation(self, options, data):
        faces = self.view["you"]["corporation"]
        total = (lambda o: sum(faces[i] for i in o[1:]))
        return (min if self.sabotage else max)(options, key=total)

    def choose_evacuation_vote(self, options, data):
        if ("takeoff",) in options and self.wants_takeoff():
            return ("takeoff",)
        seats = [o[1] for o in options if o[0] == "clearance"]
        return ("clearance", self.most_trusted(seats)) if seats else None

    def choose_lincoln(self, options, data):
        return ("decide", "clear" if self.wants_aboard(data.get("target")) else "deny")

    def choose_grant_clearance(self, options, data):
        return ("player", self.most_trusted([o[1] for o in options]))

    def choose_accident(self, options, data):
        seats = [o[1] for o in options]
        return ("player", self.believed_uninfected(seats) if self.infected
                else self.most_suspect(seats))

    def choose_trial(self, options, data):
        clearance = [o[1] for o in options if o[0] == "clearance"]
        if clearance and not self.sabotage:
            return ("clearance", self.most_trusted(clearance))
        against = [o for o in options if o[0] != "clearance"] or options
        seats = [o[1] for o in against]
        target = self.believed_uninfected(seats) if self.infected else self.most_suspect(seats)
        return next(o for o in against if o[1] == target)

    def choose_threat_claim(self, options, data):
        """The Threats module: the Uninfected (and the Company Man) take a token only for
        their own card's act; the Infected take whatever they did, to look busy."""
        mine = self.view["you"].get("threat") == data.get("threat")
        return ("claim",) if mine or self.infected else ("pass",)

    def choose_clearance_power(self, options, data):
        grants = [o[1] for o in options if o[0] == "grant" and o[1] in self.friends]
        if grants:
            return ("grant", grants[0])
        revokes = [o[1] for o in options if o[0] == "revoke" and o[1] not in self.friends]
        return ("revoke", self.believed_uninfected(revokes)) if revokes else None

    def choose_pass_command(self, options, data):
        seats = [o[1] for o in options]
        score = self.suspicion()
        pick = (min(seats, key=lambda s: (s not in self.friends, score[s])) if self.infected
                else min(seats, key=lambda s: score[s]))
        return ("player", pick)

    def choose_damage_kind(self, options, data):
        return self.worst_track(options) if self.sabotage else self.best_track(options)

    choose_malfunction_type = choose_damage_kind
    choose_compromise_kind = choose_damage_kind

    def choose_system_reboot(self, options, data):
        return self.best_track(options) if self.sabotage else self.worst_track(options)

    def choose_resupply(self, options, data):
        return self.choose_system_reboot(options, data)

    def choose_remove_token(self, options, data):
        return self.choose_system_reboot(options, data)

    def choose_bonus(self, options, data):
        if self.sabotage:
            return ("skip",)
        useful = [o for o in options if o != ("skip",)]
        return self.worst_track(useful) or (useful[0] if useful else None)

    def choose_agree(self, options, data):
        return ("refuse",) if self.sabotage and self.rng.random() < 0.5 else ("agree",)

    def choose_order_response(self, options, data):
        return ("decline",) if self.sabotage else ("actions",)
