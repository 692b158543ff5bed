"""A turn: retrieve dice, one action, a task, then whatever the task sets off."""
from __future__ import annotations

from .data import (AREAS, BLOCKED_BY, COMPLICATION, FATIGUE, OUTPOST, RECALL,
                   REPAIR_RETRIEVERS, SHIELD, SUSPICION_START, SUSPICION_VOTE, TASKS, WEAK)
from .damage import remove_token, token_options
from .dice import roll, roll_choice_options, spent_to_pool, submit, submit_options
from .engine import ACTIONS, HOOKS, SUBMITTED, Ctx, Rules, ask, push
from .state import Game, TaskInPlay

RULES = Rules()
REPAIR_ACTION = {SHIELD: "repair_shield", FATIGUE: "repair_life_support",
                 OUTPOST: "repair_outpost"}


@RULES.step("turn_start")
def turn_start(g: Game, ctx: Ctx, seat: int) -> None:
    g.active, g.turn, g.luba_reroll_used = seat, g.turn + 1, False
    ctx.fact("turn", seat=seat, turn=g.turn)
    for hook in HOOKS["turn_start"]:  # Shadow Corporation's refuelling
        hook(g, ctx)
    need = g.die_limit(seat) - g.seats[seat].held
    push(g, ("retrieve", {"seat": seat, "want": max(0, need), "exact": True, "reason": "turn"}),
         ("action_phase", {"seat": seat, "ordered": False}),
         ("task_phase", {}),
         ("turn_start", {"seat": g.left_of(seat)}))


def normal_action_options(g: Game, seat: int, ordered: bool, exposed: bool = False):
    s = g.seats[seat]
    blocked_now = {BLOCKED_BY[t]: t for t in g.outpost_board if t in BLOCKED_BY}
    legal, blocked = [], []

    def offer(option, name, reason=None):
        reason = reason or (f"blocked_by:{blocked_now[name]}" if name in blocked_now else None)
        (blocked.append((option, reason)) if reason else legal.append(option))

    repair_tools = g.current_event_is("repair_tools")
    for area, tokens in ((SHIELD, g.shield_tokens), (FATIGUE, len(g.fatigue_board)),
                         (OUTPOST, len(g.outpost_board))):
        reason = ("quarantined" if s.quarantined else "nothing_to_repair" if not tokens
                  else "weak_dice_only" if repair_tools and not s.dice[WEAK]
                  else "no_dice" if not s.all_dice else None)
        offer(("repair", area), REPAIR_ACTION[area], reason)
    for target in g.players_in_game():
        offer(("vote", target), "vote")
    for hook in HOOKS["action_options"]:  # Shadow Corporation's votes, the Threats' exposure
        hook(g, seat, ordered, exposed, offer, legal)
    offer(("lone_wolf",), "lone_wolf", "quarantined" if s.quarantined
          else "needs_two_dice" if s.all_dice < 2 else None)
    for target in g.players_in_game():
        if target != seat:
            offer(("order", target), "order", "ordered" if ordered else None)
    if s.infected:
        offer(("reveal",), "reveal", "safe_orders" if ordered and g.has("safe_orders") else None)
    legal.append(("pass",))
    return legal, blocked


def infected_options(g: Game, seat: int):
    """A revealed Infected's five actions (reveal.py plays them), or pass."""
    options = [("interference",), ("energy_spike",)]
    options += [("sabotage", a) for a in AREAS if a != g.sabotage]
    options += [("test_commander",), ("demoralize",)]
    if g.has("costly_actions") and not g.seats[seat].all_dice:
        return [("pass",)], [(o, "costly_actions_no_die") for o in options]
    return options + [("pass",)], []


def action_options(g: Game, seat: int, ordered: bool, exposed: bool = False):
    """(legal, blocked): what the seat may do as its action now."""
    if g.seats[seat].revealed:
        return infected_options(g, seat)
    return normal_action_options(g, seat, ordered, exposed)


@RULES.step("action_phase")
def action_phase(g: Game, ctx: Ctx, seat: int, ordered: bool, exposed: bool = False) -> None:
    """`exposed`: the active player has shown their status card this turn (Threats), which
    is not their action: they are asked for it again, without that option."""
    legal, blocked = action_options(g, seat, ordered, exposed)
    data = {"ordered": ordered, **({"exposed": True} if exposed else {})}
    # With actions blocked the action is asked even when "pass" is all that is left: an
    # Infected seat in the same place could still reveal, so passing for the seat would
    # tell the table it is Uninfected (ask answers a single option only with nothing blocked).
    ask(g, ctx, "action", {seat: legal}, data, blocked={seat: blocked})


@RULES.answer("action")
def choose_action(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option[0] == "expose":  # not an action (facts §8b.10): its own fact says what it did
        ACTIONS["expose"](g, ctx, seat, option, data["ordered"])
        return
    ctx.fact("action", seat=seat, action=list(option), ordered=data["ordered"])
    if option[0] != "pass":
        ACTIONS[option[0]](g, ctx, seat, option, data["ordered"])


# --- rolling for an action: choose the dice, roll privately, submit in public ---

def ask_roll(g: Game, ctx: Ctx, seat: int, purpose: str, **data) -> None:
    """Roll up to three dice: at least as many as must be submitted."""
    weak_only = purpose == "repair" and g.current_event_is("repair_tools")
    options = roll_choice_options(g, seat, data["least"], 3, weak_only)
    ask(g, ctx, "roll_dice", {seat: options}, {"purpose": purpose, **data})


@RULES.answer("roll_dice")
def roll_dice(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    _, strong, weak, commander = option
    roll(g, ctx, seat, {"strong": strong, "weak": weak, "commander": commander})
    ask_submit(g, ctx, seat, data)


def ask_submit(g: Game, ctx: Ctx, seat: int, data: dict) -> None:
    """Submit from the private roll. `least`/`most` bound the dice submitted; `ability`
    says whether Luba's once-a-turn reroll is hers to use (only as active player)."""
    least, most = data.get("least", 1), data.get("most", 1)
    options = submit_options(g.seats[seat].rolled, least, most)
    if data.get("ability") and g.ability(seat, "luba") and not g.luba_reroll_used:
        options.append(("reroll",))
    # Always asked, even with a single die rolled: how many dice a seat rolled, and whether
    # they show the same face, are its own (RB Rolling & submitting dice); a submission made
    # for it would tell the table.
    ask(g, ctx, "submit", {seat: options}, data, auto=False)


@RULES.answer("submit")
def submit_dice(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option == ("reroll",):
        g.luba_reroll_used = True
        counts = {}
        for colour, _ in g.seats[seat].rolled:
            counts[colour] = counts.get(colour, 0) + 1
        ctx.fact("rerolled", seat=seat)
        roll(g, ctx, seat, counts)
        ask_submit(g, ctx, seat, data)
        return
    faces = submit(g, ctx, seat, option[1:], data["purpose"])
    SUBMITTED[data["purpose"]](g, ctx, seat, faces, data)


# --- the normal actions ---

@RULES.action("repair")
def repair(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    ask_roll(g, ctx, seat, "repair", area=option[1], least=1, most=1,
             ability=not ordered and seat == g.active)


@RULES.on_submitted("repair")
def repaired(g: Game, ctx: Ctx, seat: int, faces: list, data: dict) -> None:
    area, success = data["area"], faces[0] > 0
    ctx.fact("repair", seat=seat, area=area, success=success)
    retriever = next((c for c, a in REPAIR_RETRIEVERS.items() if a == area), None)
    retrieves = data["ability"] and g.ability(seat, retriever)
    sabotaged = g.sabotage == area
    # The submitted die goes back to the pool first, so Steve, Enver or Michihiro may take
    # that very die back: a repair "without submitting dice" (facts §4, RB Strategy).
    after = [("spent_to_pool", {})]
    if success:
        after.append(("remove_repaired", {"seat": seat, "area": area}))
    if retrieves and sabotaged:
        after.append(("ask_order_of_effects", {"seat": seat, "area": area}))
    elif retrieves:
        after.append(("retrieve", {"seat": seat, "want": 1, "exact": True, "reason": "ability"}))
    elif sabotaged:
        after.append(("sabotage_discard", {"seat": seat, "area": area}))
    push(g, *after)


@RULES.step("remove_repaired")
def remove_repaired(g: Game, ctx: Ctx, seat: int, area: str) -> None:
    if not token_options(g, (area,)):
        return  # a host correction emptied the area during the repair roll
    if area == SHIELD:
        remove_token(g, ctx, SHIELD)  # the token farthest along the track
    else:
        ask(g, ctx, "remove_token", {seat: token_options(g, (area,))}, {})


@RULES.answer("remove_token")
def remove_chosen_token(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    remove_token(g, ctx, *option)


@RULES.step("ask_order_of_effects")
def ask_order_of_effects(g: Game, ctx: Ctx, seat: int, area: str) -> None:
    # Facts §8 q5: the retrieval is mandatory and the player orders it against sabotage.
    ask(g, ctx, "order_of_effects", {seat: [("retrieve_first",), ("discard_first",)]},
        {"area": area})


@RULES.answer("order_of_effects")
def order_of_effects(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    get = ("retrieve", {"seat": seat, "want": 1, "exact": True, "reason": "ability"})
    drop = ("sabotage_discard", {"seat": seat, "area": data["area"]})
    push(g, *((get, drop) if option == ("retrieve_first",) else (drop, get)))


@RULES.step("sabotage_discard")
def sabotage_discard(g: Game, ctx: Ctx, seat: int, area: str) -> None:
    """Whoever repairs a sabotaged area discards two dice, or all they have (RB)."""
    g.sabotage = None
    ctx.fact("sabotage_removed", area=area, seat=seat)
    push(g, ("discard_dice", {"seat": seat, "count": 2, "reason": "sabotage"}))


@RULES.step("spent_to_pool")
def spent_back(g: Game, ctx: Ctx) -> None:
    spent_to_pool(g)


@RULES.action("lone_wolf")
def lone_wolf(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    ask_roll(g, ctx, seat, "lone_wolf", least=2, most=2,
             ability=not ordered and seat == g.active)


@RULES.on_submitted("lone_wolf")
def lone_wolf_result(g: Game, ctx: Ctx, seat: int, faces: list, data: dict) -> None:
    success = all(f > 0 for f in faces)
    ctx.fact("lone_wolf", seat=seat, success=success)
    push(g, *([("add_event_cube", {})] if success else []), ("spent_to_pool", {}))


@RULES.action("vote")
def call_vote(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    push(g, ("vote", {"target": option[1], "caller": seat}))


@RULES.action("order")
def issue_order(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    target = option[1]
    ask(g, ctx, "order_response", {target: [("retrieve",), ("actions",), ("decline",)]},
        {"by": seat})


@RULES.answer("order_response")
def order_response(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    ctx.fact("order_response", seat=seat, response=option[0])
    if option == ("retrieve",):
        # Two dice within the die limit; Jon's extra die and the Command token do not apply.
        push(g, ("retrieve", {"seat": seat, "want": 2, "exact": False, "reason": "order"}))
    elif option == ("actions",):
        push(g, ("action_phase", {"seat": seat, "ordered": True}),
             ("action_phase", {"seat": seat, "ordered": True}))


# --- the task ---

def draw_task(g: Game, ctx: Ctx, seat: int) -> str | None:
    """The top task card; None when the deck and the discards are both empty (only the
    Evacuation Failure card, drawn and gone, can leave them so)."""
    while True:
        if not g.task_deck:
            # Reshuffle the face-down discards without showing them (RB Choose a task card).
            g.task_deck = ctx.chance.shuffle(sorted(g.task_discard))
            g.task_discard = []
            ctx.fact("task_deck_reshuffled", size=len(g.task_deck))
            if not g.task_deck:
                return None
        card = g.task_deck.pop()
        if TASKS[card].kind != RECALL:
            return card
        # Revealed at once, and the drawer draws another (facts §8b.5), Interference too.
        for hook in HOOKS["recall_drawn"]:
            hook(g, ctx, seat)


@RULES.step("task_phase")
def task_phase(g: Game, ctx: Ctx) -> None:
    seat, s = g.active, g.seats[g.active]
    if s.revealed or (s.quarantined and not g.has("flimsy_quarantine")):
        # Quarantined and revealed players draw no task (RB Quarantine, Revealing).
        ctx.fact("ruled", rule="revealed_no_task" if s.revealed else "quarantine_no_task",
                 seat=seat)
        return
    n = 3 if g.ability(seat, "chaya") else 2
    g.task_drawn = [c for c in (draw_task(g, ctx, seat) for _ in range(n)) if c]
    ctx.fact("tasks_drawn", to=[seat], seat=seat, cards=list(g.task_drawn))
    ask(g, ctx, "task", {seat: [("task", c) for c in g.task_drawn]}, {})


@RULES.answer("task")
def choose_task(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    card = option[1]
    rest = [c for c in g.task_drawn if c != card]
    g.task_discard.extend(rest)
    g.task_drawn = []
    ctx.fact("task_discarded", to=[seat], seat=seat, cards=rest)
    ctx.fact("task_chosen", seat=seat, card=card)
    task = TASKS[card]
    g.task = TaskInPlay(card, str(task.kind))
    push(g, ("complication" if task.kind == COMPLICATION else "malfunction", {"card": card}),
         ("after_task", {}))


@RULES.step("after_task")
def after_task(g: Game, ctx: Ctx) -> None:
    spent_to_pool(g)
    g.task_discard.append(g.task.card)
    ctx.fact("task_result", card=g.task.card, success=bool(g.task.success))
    steps = []
    if g.task.success and g.current_event_is("explosions"):
        # After each successful task the active player loses an arm (facts §6b, §8 q8).
        steps.append(("explosion", {"seat": g.active}))
    if g.task.success:
        if g.current_event_is("jerry_rig_shields"):
            steps.append(("shield_test", {}))
        steps.append(("add_event_cube", {}))
    steps.append(("suspicion", {"card": g.task.card}))
    steps.append(("finish_task", {}))
    push(g, *steps)


@RULES.step("suspicion")
def suspicion(g: Game, ctx: Ctx, card: str) -> None:
    due = advance_suspicion(g, ctx, card)
    # Shadow Corporation's evacuation track moves after the suspicion track.
    evacuate = False
    for hook in HOOKS["forced_vote_due"]:
        evacuate = hook(g, ctx, card) or evacuate
    if due and evacuate:
        # Both forced votes on one turn: the active player picks the order (ESOG).
        ask(g, ctx, "vote_order", {g.active: [("suspicion",), ("evacuation",)]}, {})
    elif due:
        # A forced vote even if Research Lab is out (RB Hold a vote).
        push(g, ("ask_vote_target", {"seat": g.active, "purpose": "suspicion"}),
             ("reset_suspicion", {}))
    elif evacuate:
        push(g, ("forced_evacuation_vote", {"seat": g.active}))


def advance_suspicion(g: Game, ctx: Ctx, card: str) -> bool:
    """A SUSPICIOUS ACTIVITY task moves the cube; True when it reaches the vote."""
    if not TASKS[card].suspicious or g.suspicion is None:
        return False
    g.suspicion += 1
    ctx.fact("suspicion", position=g.suspicion)
    return g.suspicion >= SUSPICION_VOTE


@RULES.step("reset_suspicion")
def reset_suspicion(g: Game, ctx: Ctx) -> None:
    if g.suspicion is not None:
        g.suspicion = SUSPICION_START
        ctx.fact("suspicion", position=g.suspicion)


@RULES.step("finish_task")
def finish_task(g: Game, ctx: Ctx) -> None:
    g.task = None
