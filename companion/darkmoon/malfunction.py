"""Malfunctions: IN or OUT in clockwise order, private rolls, public submissions, the result."""
from __future__ import annotations

from .data import (BLACK_DECK_BONUS, BLACKOUT_DIFFICULTY, FATIGUE, OUTPOST,
                   SHADOW_CORPORATION, SHIELD, TASKS, UNKNOWN)
from .damage import damage, remove_token, token_options
from .dice import roll_all, spent_to_pool
from .engine import HOOKS, Ctx, Rules, ask, push
from .state import Game
from .turn import ask_submit

RULES = Rules()

PASS_DICE, JON_EXTRA = 2, 1


@RULES.step("malfunction")
def malfunction(g: Game, ctx: Ctx, card: str) -> None:
    t, task = TASKS[card], g.task
    task.difficulty = (t.difficulty + (BLACK_DECK_BONUS if g.deck_colour == "black" else 0)
                       + (BLACKOUT_DIFFICULTY if g.current_event_is("blackout") else 0))
    task.consequence, task.type = t.consequence, t.type
    order = g.clockwise_from(g.active)
    # First Is Last: the active player chooses and rolls last.
    task.order = order[1:] + order[:1] if g.has("first_is_last") else order
    ctx.fact("malfunction", card=card, difficulty=task.difficulty,
             consequence=task.consequence, type=task.type)
    steps = [("participation", {"i": 0})]
    if t.type == UNKNOWN:
        # The type is named before anyone goes IN or OUT (RB ????????? malfunction).
        steps.insert(0, ("name_type", {}))
    if g.has(SHADOW_CORPORATION):
        # The corporation dice come with the chosen card, before the task resolves (ESOG
        # Choose a task card; facts §8b.1: malfunctions only).
        steps.insert(0, ("corporation_roll", {}))
    push(g, *steps)


@RULES.step("name_type")
def name_type(g: Game, ctx: Ctx) -> None:
    ask(g, ctx, "malfunction_type", {g.active: [(SHIELD,), (OUTPOST,), (FATIGUE,)]}, {})


@RULES.answer("malfunction_type")
def malfunction_type(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    g.task.type = option[0]
    ctx.fact("malfunction_type", seat=seat, type=option[0])


@RULES.step("participation")
def participation(g: Game, ctx: Ctx, i: int) -> None:
    task = g.task
    if i == len(task.order):
        push(g, ("malfunction_roll", {"j": 0}))
        return
    seat = task.order[i]
    options = ([("in",)] if g.seats[seat].all_dice else []) + [("out",)]
    # Never answered for the seat: an automatic OUT would tell the table it holds no dice.
    ask(g, ctx, "participation", {seat: options}, {"i": i}, auto=False)


def pass_allowance(g: Game, seat: int) -> int:
    """Dice taken when going OUT: two, Jon three, one fewer with the Command token out;
    revealed Infected always two (RB)."""
    if g.seats[seat].revealed:
        return PASS_DICE
    allowance = PASS_DICE + (JON_EXTRA if g.ability(seat, "jon") else 0)
    return allowance - (1 if "command" in g.outpost_board else 0)


@RULES.answer("participation")
def choose_participation(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    g.task.participation[seat] = option[0]
    ctx.fact("participation", seat=seat, choice=option[0])
    nxt = ("participation", {"i": data["i"] + 1})
    if option == ("out",):
        push(g, ("retrieve", {"seat": seat, "want": pass_allowance(g, seat), "exact": False,
                              "reason": "pass"}), nxt)
    else:
        push(g, nxt)


def submits_one_die(g: Game, seat: int) -> bool:
    return g.fatigued(seat) or (g.seats[seat].revealed and g.has("fatigued_infected"))


@RULES.step("malfunction_roll")
def malfunction_roll(g: Game, ctx: Ctx, j: int) -> None:
    task = g.task
    rollers = [s for s in task.order if task.participation.get(s) == "in"]
    if j == len(rollers):
        push(g, ("malfunction_result", {}))
        return
    seat = rollers[j]
    roll_all(g, ctx, seat)  # every roll uses all active dice (RB Rolling & submitting)
    one = submits_one_die(g, seat)
    ask_submit(g, ctx, seat, {"purpose": "malfunction", "j": j, "least": 1,
                              "most": 1 if one else 99, "ability": seat == g.active})


@RULES.on_submitted("malfunction")
def malfunction_submitted(g: Game, ctx: Ctx, seat: int, faces: list, data: dict) -> None:
    task = g.task
    worth = faces
    for hook in HOOKS["faces_counted"]:  # Shadow Corporation's Corporate Bribery
        worth = hook(g, worth)
    task.success_total += sum(worth)
    for hook in HOOKS["malfunction_submitted"]:  # the Threats' Act Recklessly
        hook(g, ctx, seat)
    task.submitted.extend((seat, f) for f in faces)
    ctx.fact("success_track", total=task.success_total, difficulty=task.difficulty)
    if submits_one_die(g, seat) or not g.seats[seat].all_dice:
        # Nobody is asked "roll again?": one die is all a fatigued player gives (RB Fatigue),
        # and a player with no dice left has nothing to roll.
        rule = ("no_dice_left" if not submits_one_die(g, seat)
                else "fatigued_infected" if g.seats[seat].revealed else "fatigued_one_die")
        ctx.fact("ruled", rule=rule, seat=seat)
        push(g, ("malfunction_roll", {"j": data["j"] + 1}))
    else:
        ask(g, ctx, "continue", {seat: [("roll_again",), ("stop",)]}, data, auto=False)


@RULES.answer("continue")
def continue_rolling(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option == ("stop",):
        ctx.fact("stopped_rolling", seat=seat)
        push(g, ("malfunction_roll", {"j": data["j"] + 1}))
    else:
        roll_all(g, ctx, seat)
        ask_submit(g, ctx, seat, data)


@RULES.step("malfunction_result")
def malfunction_result(g: Game, ctx: Ctx) -> None:
    task = g.task
    task.success = task.success_total >= task.difficulty
    # Spent dice return before consequences or cubes (RB Resolve task).
    spent_to_pool(g)
    ctx.fact("malfunction_result", success=task.success, total=task.success_total,
             difficulty=task.difficulty)
    if not task.success:
        damage(g, ctx, task.type, task.consequence)
    elif TASKS[task.card].bonus:
        options = token_options(g, (task.type,))
        if options:  # the success bonus is optional (facts §8 q4)
            ask(g, ctx, "bonus", {g.active: options + [("skip",)]}, {})
        else:
            ctx.fact("ruled", rule="no_bonus_token", seat=g.active)


@RULES.answer("bonus")
def success_bonus(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option != ("skip",):
        remove_token(g, ctx, *option)
