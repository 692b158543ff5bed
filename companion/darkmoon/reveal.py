"""Revealing as Infected, the infection powers, and the five actions of a revealed player."""
from __future__ import annotations

from itertools import permutations

from .damage import ask_damage_kind, damage, extra_damage, pile_of, place_one, place_token
from .data import DAMAGE_KINDS, FATIGUE, OUTPOST, SHIELD, STRONG, WEAK
from .dice import any_die_face, roll_all
from .engine import POWERS, Ctx, Rules, ask, push
from .events import malfunctions_only
from .state import Game
from .turn import ask_submit, draw_task
from .votes import first_left, set_commander, unclear

RULES = Rules()

POWER_KIND = {"infected_shields": SHIELD, "infected_outpost": OUTPOST,
              "infected_life_support": FATIGUE}


@RULES.action("reveal")
def reveal_action(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    push(g, ("reveal", {"seat": seat}))


@RULES.step("reveal")
def reveal(g: Game, ctx: Ctx, seat: int) -> None:
    s = g.seats[seat]
    quarantined = s.quarantined
    s.revealed = True
    ctx.fact("revealed", seat=seat, status=s.status)
    unclear(g, ctx, seat, "revealed")  # the clearance goes with the reveal (facts §8b.6)
    steps = []
    # A quarantined player reveals without the power (RB Revealing as infected); the Nerfed
    # Reveal variants take away the power or its second use (RB Variant rules).
    if quarantined:
        ctx.fact("ruled", rule="quarantined_reveal", seat=seat)
    elif g.has("nerfed_reveal_extreme"):
        ctx.fact("ruled", rule="nerfed_reveal_extreme", seat=seat)
    else:
        steps.append(("infection_power", {"seat": seat}))
        if g.has("nerfed_reveal_normal"):
            ctx.fact("ruled", rule="nerfed_reveal_normal", seat=seat)
        else:
            steps.append(("second_power_roll", {"seat": seat}))
    steps.append(("reveal_discards", {"seat": seat}))
    push(g, *steps)


@RULES.step("infection_power")
def infection_power(g: Game, ctx: Ctx, seat: int) -> None:
    status = g.seats[seat].status
    if status in POWERS:  # a power other than a damage token's (shadow_cards.py)
        ctx.fact("infection_power", seat=seat, kind=status)
        POWERS[status](g, ctx, seat)
        return
    kind = POWER_KIND[status]
    ctx.fact("infection_power", seat=seat, kind=kind)
    if kind == SHIELD:
        damage(g, ctx, SHIELD, 1)
        return
    # Draw two tokens, place one of them and return the other.
    pile = pile_of(g, kind)
    first = ctx.chance.pick(pile)
    rest = [t for t in pile if t != first]
    drawn = [first] + ([ctx.chance.pick(rest)] if rest else [])
    ctx.fact("tokens_drawn", kind=kind, tokens=drawn)
    ask(g, ctx, "power_token", {seat: [(kind, t) for t in drawn]}, {})


@RULES.answer("power_token")
def power_token(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    kind, token = option
    place_token(g, ctx, kind, token)
    for _ in range(extra_damage(g, kind)):
        if g.outcome is None:
            place_one(g, ctx, kind)


@RULES.step("second_power_roll")
def second_power_roll(g: Game, ctx: Ctx, seat: int) -> None:
    face = any_die_face(g, ctx, seat)
    ctx.fact("power_roll", seat=seat, face=face)
    if face is not None and face > 0:
        # "they may execute their Infection Power a second time" (RB): the player decides.
        ask(g, ctx, "second_power", {seat: [("use",), ("skip",)]}, {})


@RULES.answer("second_power")
def second_power(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option == ("use",):
        push(g, ("infection_power", {"seat": seat}))


@RULES.step("reveal_discards")
def reveal_discards(g: Game, ctx: Ctx, seat: int) -> None:
    s = g.seats[seat]
    s.quarantined, s.die_tokens = False, 0
    if g.commander == seat:
        heir = first_left(g, seat, free_only=True)
        heir = heir if heir is not None else first_left(g, seat, free_only=False)
        if heir is not None:
            set_commander(g, ctx, heir)
    push(g, ("discard_excess", {"seat": seat}))
    if g.all_infected_revealed():
        ctx.fact("all_infected_revealed")
        g.suspicion = None  # the suspicion cube leaves the game (RB)
        if g.has("no_more_complications"):
            malfunctions_only(g, ctx)


# --- the revealed player's actions (offered by turn.infected_options) ---


def infected_action(name: str):
    """Register an infected action; Costly Actions first takes a die as its price."""
    def register(fn):
        RULES.step(name)(fn)

        def start(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
            steps = [(name, {"seat": seat, "option": list(option)})]
            if g.has("costly_actions"):
                steps.insert(0, ("discard_dice", {"seat": seat, "count": 1,
                                                  "reason": "costly_action"}))
            push(g, *steps)
        RULES.action(name)(start)
        return fn
    return register


@infected_action("interference")
def interference(g: Game, ctx: Ctx, seat: int, option: list) -> None:
    available = len(g.task_deck) + len(g.task_discard)
    drawn = [draw_task(g, ctx, seat) for _ in range(min(3, available))]
    drawn = [c for c in drawn if c is not None]
    ctx.fact("tasks_drawn", to=[seat], seat=seat, cards=drawn)
    options = [("keep",) + p for n in range(len(drawn) + 1) for p in permutations(drawn, n)]
    ask(g, ctx, "interference", {seat: options}, {"drawn": drawn})


@RULES.answer("interference")
def arrange_tasks(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    kept = list(option[1:])  # kept[0] goes on top
    dropped = [c for c in data["drawn"] if c not in kept]
    g.task_deck.extend(reversed(kept))
    g.task_discard.extend(dropped)
    ctx.fact("task_discarded", to=[seat], seat=seat, cards=dropped)
    ctx.fact("interference", seat=seat, returned=len(kept), discarded=len(dropped))


@infected_action("energy_spike")
def energy_spike(g: Game, ctx: Ctx, seat: int, option: list) -> None:
    if g.shield_tokens <= 1:
        damage(g, ctx, SHIELD, 1)
    else:
        push(g, ("shield_test", {}))


@infected_action("sabotage")
def sabotage(g: Game, ctx: Ctx, seat: int, option: list) -> None:
    g.sabotage = option[1]  # only one area is ever sabotaged: the token moves
    ctx.fact("sabotaged", seat=seat, area=option[1])


@infected_action("test_commander")
def test_commander(g: Game, ctx: Ctx, seat: int, option: list) -> None:
    commander = g.commander
    if not g.seats[commander].all_dice:
        ctx.fact("ruled", rule="commander_no_dice", seat=commander)
        ctx.fact("commander_tested", seat=commander, success=False)
        ask_damage_kind(g, ctx, seat, DAMAGE_KINDS, "test_commander", optional=True)
        return
    roll_all(g, ctx, commander)
    ask_submit(g, ctx, commander, {"purpose": "test_commander", "infected": seat,
                                   "least": 1, "most": 1, "ability": False})


@RULES.on_submitted("test_commander")
def commander_tested(g: Game, ctx: Ctx, seat: int, faces: list, data: dict) -> None:
    success = faces[0] > 0
    ctx.fact("commander_tested", seat=seat, success=success)
    push(g, ("spent_to_pool", {}))
    if not success:
        # "the Infected player may draw a Damage token of their choice" (RB Test commander)
        ask_damage_kind(g, ctx, data["infected"], DAMAGE_KINDS, "test_commander",
                        optional=True)


@infected_action("demoralize")
def demoralize(g: Game, ctx: Ctx, seat: int, option: list) -> None:
    """Everyone from the left swaps strong dice for weak while the pool has weak ones."""
    swapped_total = 0
    for other in g.clockwise_from(seat)[1:]:
        s = g.seats[other]
        if s.revealed:
            continue
        n = min(s.dice[STRONG], g.pool[WEAK])
        s.dice[STRONG] -= n
        s.dice[WEAK] += n
        g.pool[STRONG] += n
        g.pool[WEAK] -= n
        swapped_total += n
        ctx.fact("demoralized", to=[other], seat=other, swapped=n)
    ctx.fact("demoralize", seat=seat, swapped=swapped_total)
