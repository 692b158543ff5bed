"""Event cards and the Final Event: cubes, effects, the commander's choices, victory."""
from __future__ import annotations

from .damage import company_man_in_play, count, damage, end_game, place_one, remove_token
from .data import (CHARACTERS, COMPLICATION, DAMAGE_KINDS, EVAC_SHIP, EVACUATION_FAILURE,
                   EVENTS, EVENTS_BEFORE_FINAL, FATIGUE, FINAL_EVENTS, OUTPOST, OUTPOST_TOKENS,
                   SHIELD,
                   SYSTEM_REBOOT_DRAWS, SYSTEM_REBOOT_MAX_OF_A_KIND, TASKS, TOKENS_TO_LOSE)
from .dice import discard_all
from .engine import HOOKS, Ctx, Rules, ask, push
from .state import Game, Side
from .votes import quarantine, release, set_commander

RULES = Rules()


def capped(g: Game) -> bool:
    """Damage from an Event stops just before it would end the game, unless Deadly Events."""
    return not g.has("deadly_events")


@RULES.step("add_event_cube")
def add_event_cube(g: Game, ctx: Ctx) -> None:
    if g.final_active:
        g.final_cubes += 1
        ctx.fact("event_cube", card=g.final_event, cubes=g.final_cubes, final=True)
        if g.final_cubes >= cubes_needed(g):
            final_completed(g, ctx)
        return
    g.event_cubes += 1
    ctx.fact("event_cube", card=g.event, cubes=g.event_cubes, final=False)
    if g.event_cubes >= cubes_needed(g):
        card = g.event
        ctx.fact("event_completed", card=card)
        push(g, (f"event:{card}", {}), ("next_event", {"completed": card}))


def cubes_needed(g: Game) -> int:
    """The cubes the current event (or the final event) needs: its card's, and one more
    after Risk Assessment (facts §6a, §8 q1)."""
    card = FINAL_EVENTS[g.final_event] if g.final_active else EVENTS[g.event]
    return card.cubes + g.extra_cubes


def final_completed(g: Game, ctx: Ctx) -> None:
    # The Company Man is checked first (facts §8b.7): an amputated Infected and he alone wins.
    if company_man_in_play(g) and any(s.infected and s.amputated for s in g.seats):
        end_game(g, ctx, Side.COMPANY_MAN, "company_man_amputee")
        return
    if g.final_event == "protect_codes":
        # The commander shows their card: infected or fatigued loses it all (RB card notes).
        commander = g.commander
        status = g.seats[commander].status
        ctx.fact("codes_checked", seat=commander, status=status,
                 fatigued=g.fatigued(commander))
        if g.seats[commander].infected or g.fatigued(commander):
            end_game(g, ctx, Side.INFECTED, "codes")
            return
    for hook in HOOKS["final_completed"]:  # then the threats (facts §8b.7)
        hook(g, ctx)
    if g.outcome is None:
        end_game(g, ctx, Side.UNINFECTED, "final_event")


@RULES.step("next_event")
def next_event(g: Game, ctx: Ctx, completed: str) -> None:
    g.completed_events.append(completed)
    g.event, g.event_cubes = None, 0
    g.extra_cubes = 1 if completed == "risk_assessment" else 0
    if g.outcome is not None:
        return
    if len(g.completed_events) >= EVENTS_BEFORE_FINAL:
        start_final(g, ctx)
    else:
        push(g, ("draw_events", {"reason": "next_event"}))


@RULES.step("draw_events")
def draw_events(g: Game, ctx: Ctx, reason: str = "setup") -> None:
    """The commander draws two and places one. The other goes to the bottom of the deck at
    setup (RB Setup step 15) but is discarded face down in play (RB Turn step 7); either way
    nobody else sees it."""
    g.event_drawn = [g.event_deck.pop(), g.event_deck.pop()]
    ctx.fact("events_drawn", to=[g.commander], seat=g.commander, cards=list(g.event_drawn))
    ask(g, ctx, "event", {g.commander: [("event", c) for c in g.event_drawn]},
        {"reason": reason})


@RULES.answer("event")
def choose_event(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    card = option[1]
    other = next(c for c in g.event_drawn if c != card)
    g.event_drawn = []
    g.event, g.event_cubes = card, 0
    if data.get("reason", "setup") == "setup":
        g.event_deck.insert(0, other)
        ctx.fact("event_bottom", to=[seat], seat=seat, card=other)
        ctx.fact("event_placed", seat=seat, card=card, other="bottom")
    else:
        # Out of the game: the discarded card is shown only in the private fact, which
        # the end of the game reveals.
        ctx.fact("event_discarded", to=[seat], seat=seat, card=other)
        ctx.fact("event_placed", seat=seat, card=card, other="discarded")
    if card == "recovery":
        push(g, ("recovery", {}))


def start_final(g: Game, ctx: Ctx) -> None:
    g.final_active = True
    ctx.fact("final_event_begins", card=g.final_event)
    malfunctions_only(g, ctx)
    if g.evacuating():
        # The Evacuation Failure card joins the new deck (ESOG Events and final events).
        g.task_deck = ctx.chance.shuffle(sorted(g.task_deck + [EVACUATION_FAILURE]))
        ctx.fact("evacuation_failure_shuffled", size=len(g.task_deck))
    if g.final_event == "toxic_gas":
        # Every player not revealed discards every active die, the commander die too.
        for seat in g.players_in_game():
            discard_all(g, ctx, seat, "toxic_gas")
    if g.final_event == "last_stand":
        for seat in g.players_in_game():
            g.seats[seat].die_tokens -= 1
            ctx.fact("die_tokens", seat=seat, change=-1)
            push(g, ("discard_excess", {"seat": seat}))


def malfunctions_only(g: Game, ctx: Ctx) -> None:
    """Gather the deck and the discards, drop the complications, shuffle (RB Final event)."""
    cards = [c for c in g.task_deck + g.task_discard if TASKS[c].kind != COMPLICATION]
    g.task_deck, g.task_discard = ctx.chance.shuffle(sorted(cards)), []
    ctx.fact("task_deck_rebuilt", size=len(g.task_deck))


@RULES.event("blood_testing")
def blood_testing(g: Game, ctx: Ctx) -> None:
    # No vote: the commander quarantines or releases one player (RB card notes).
    options = [("player", s) for s in g.players_in_game()]
    ask(g, ctx, "blood_testing", {g.commander: options}, {})


@RULES.answer("blood_testing")
def blood_tested(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    target = option[1]
    if g.seats[target].quarantined:
        release(g, ctx, target)
    else:
        quarantine(g, ctx, target, seat)


@RULES.event("divert_power")
def divert_power(g: Game, ctx: Ctx) -> None:
    damage(g, ctx, SHIELD, 2, capped=capped(g))


@RULES.event("food_rationing")
@RULES.event("jerry_rig_shields")
@RULES.event("repair_tools")
@RULES.event("recovery")
def during_only(g: Game, ctx: Ctx) -> None:
    """These act while they are the current event (or at its start), not on completion."""


@RULES.event("lockdown")
def lockdown(g: Game, ctx: Ctx) -> None:
    damage(g, ctx, OUTPOST, 2, capped=capped(g))


@RULES.event("pass_command")
def pass_command(g: Game, ctx: Ctx) -> None:
    heirs = [("player", s) for s in g.players_in_game()
             if s != g.commander and not g.seats[s].quarantined]
    if heirs:
        ask(g, ctx, "pass_command", {g.commander: heirs}, {})
    else:  # with everyone else in quarantine the command cannot pass (facts §8 q2)
        ctx.fact("ruled", rule="command_cannot_pass", seat=g.commander)


@RULES.answer("pass_command")
def command_passed(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    set_commander(g, ctx, option[1])


@RULES.event("reboot_shields")
def reboot_shields(g: Game, ctx: Ctx) -> None:
    n = 2 if g.shield_tokens == 0 else 1
    damage(g, ctx, SHIELD, n, capped=capped(g), test=False)
    push(g, *[("shield_test", {})] * 3)


@RULES.step("recovery")
def recovery(g: Game, ctx: Ctx) -> None:
    # Not capped: the cap is for Events when *completed* (RB Complete the Event), and
    # Recovery draws when it is placed, so its sixth fatigue token ends the game (facts §6a).
    damage(g, ctx, FATIGUE, 1)
    if len(g.fatigue_board) == 1 and g.outcome is None:
        damage(g, ctx, FATIGUE, 1)
    for seat in range(g.players):
        if g.fatigued(seat):
            discard_all(g, ctx, seat, "recovery")


@RULES.event("rescue_crewman")
def rescue_crewman(g: Game, ctx: Ctx) -> None:
    damage(g, ctx, FATIGUE, 2, capped=capped(g))


@RULES.event("restore_comm")
def restore_comm(g: Game, ctx: Ctx) -> None:
    """Everyone from the active player may take dice, as many as they choose up to their
    limit; the Command token does not matter and revealed Infected take none (RB card
    notes: "They may still retrieve dice up to their full die limit")."""
    steps = []
    for seat in g.clockwise_from(g.active):
        if not g.seats[seat].revealed:
            steps.append(("restore_comm_seat", {"seat": seat}))
        else:
            ctx.fact("ruled", rule="restore_comm_revealed", seat=seat)
    push(g, *steps)


@RULES.step("restore_comm_seat")
def restore_comm_seat(g: Game, ctx: Ctx, seat: int) -> None:
    # The room is counted when this seat's turn to take comes, after the seats before it.
    need = g.die_limit(seat) - g.seats[seat].held
    push(g, ("retrieve", {"seat": seat, "want": max(0, need), "exact": False,
                          "reason": "restore_comm"}))


@RULES.event("resupply")
def resupply(g: Game, ctx: Ctx) -> None:
    options = [(k,) for k in DAMAGE_KINDS if count(g, k)] + [("none",)]
    ask(g, ctx, "resupply", {g.commander: options}, {})


@RULES.answer("resupply")
def resupplied(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    kind = option[0]
    ctx.fact("resupply", seat=seat, kind=kind)
    if kind == SHIELD:
        for _ in range(g.shield_tokens):
            remove_token(g, ctx, SHIELD)
    elif kind in (OUTPOST, FATIGUE):
        board = g.outpost_board if kind == OUTPOST else g.fatigue_board
        for token in list(board):
            remove_token(g, ctx, kind, token)


@RULES.event("salvage_parts")
def salvage_parts(g: Game, ctx: Ctx) -> None:
    """Return every outpost and fatigue token and draw the same numbers again."""
    outposts, fatigues = len(g.outpost_board), len(g.fatigue_board)
    # The game's own tokens, in the box's order: Shadow Corporation adds the Evac Ship and
    # builds its fatigue pool from the characters in play.
    outpost, fatigue = set(g.outpost_board + g.outpost_pile), set(g.fatigue_board + g.fatigue_pile)
    g.outpost_board, g.outpost_pile = [], [t for t in OUTPOST_TOKENS + (EVAC_SHIP,)
                                           if t in outpost]
    g.fatigue_board, g.fatigue_pile = [], [c for c in CHARACTERS if c in fatigue]
    ctx.fact("salvage_parts", outpost=outposts, fatigue=fatigues)
    for kind, n in ((OUTPOST, outposts), (FATIGUE, fatigues)):
        for _ in range(n):
            place_one(g, ctx, kind)


@RULES.event("system_crash")
def system_crash(g: Game, ctx: Ctx) -> None:
    for kind in (OUTPOST, FATIGUE, SHIELD):
        damage(g, ctx, kind, 1, capped=capped(g), test=False)
    push(g, ("shield_test", {}))


@RULES.event("system_reboot")
def system_reboot(g: Game, ctx: Ctx) -> None:
    push(g, ("system_reboot_draw", {"drawn": {}}))


@RULES.step("system_reboot_draw")
def system_reboot_draw(g: Game, ctx: Ctx, drawn: dict) -> None:
    """Five tokens, at most three of a kind, none that would end the game (RB card notes)."""
    if sum(drawn.values()) >= SYSTEM_REBOOT_DRAWS:
        if drawn.get(SHIELD):
            push(g, ("shield_test", {}))
        return
    limit = TOKENS_TO_LOSE - 1  # the card itself forbids ending the game, Deadly or not
    options = [(k,) for k in DAMAGE_KINDS
               if drawn.get(k, 0) < SYSTEM_REBOOT_MAX_OF_A_KIND and count(g, k) < limit]
    if not options:
        ctx.fact("ruled", rule="system_reboot_stops", seat=g.commander)
        if drawn.get(SHIELD):
            push(g, ("shield_test", {}))
        return
    ask(g, ctx, "system_reboot", {g.commander: options}, {"drawn": drawn})


@RULES.answer("system_reboot")
def system_reboot_token(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    kind = option[0]
    drawn = dict(data["drawn"])
    drawn[kind] = drawn.get(kind, 0) + 1
    ctx.fact("damage_chosen", seat=seat, kind=kind, reason="system_reboot")
    damage(g, ctx, kind, 1, capped=True, test=False)
    push(g, ("system_reboot_draw", {"drawn": drawn}))


@RULES.event("tactical_prep")
def tactical_prep(g: Game, ctx: Ctx) -> None:
    g.final_cubes += 1
    ctx.fact("event_cube", card=g.final_event, cubes=g.final_cubes, final=True)
