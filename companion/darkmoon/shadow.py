"""Shadow Corporation: corporation dice, amputation, evacuation clearance and take-off.

ESOG = the summary (rules/darkmoon-summary-with-shadow-corporation.txt); facts = §8b of
darkmoon-facts.md, whose rulings fill what the summary leaves open.
"""
from __future__ import annotations

from .damage import company_man_in_play, end_game
from .data import (CLEARANCE_SEATS, CORPORATION, CORPORATION_ROLL, EVAC_SHIP,
                   EVACUATION_START, EVACUATION_VOTE, RAID_ROLL, RAID_SUBMIT,
                   SHADOW_CORPORATION, SERENE_ROLL, TASKS, THREATS_MODULE)
from .dice import submit_options
from .engine import ACTIONS, Ctx, Rules, ask, push
from .state import Game, Side
from .threats import deal_threats
from .votes import unclear

RULES = Rules()

# --- corporation dice (ESOG Choose a task card; facts §1, §8b.1) ---


def corporation_dice(g: Game) -> tuple[int, int]:
    """(rolled, submitted) for the active player's malfunction: 2 and 1; Serene rolls 3;
    Corporate Raid rolls 3 and submits 2; Electrical Storm rolls none."""
    if not g.has(SHADOW_CORPORATION) or g.current_event_is("electrical_storm"):
        return 0, 0
    if g.current_event_is("corporate_raid"):
        return RAID_ROLL, RAID_SUBMIT
    return (SERENE_ROLL if g.ability(g.active, "serene") else CORPORATION_ROLL), 1


@RULES.step("corporation_roll")
def corporation_roll(g: Game, ctx: Ctx) -> None:
    rolled, submitted = corporation_dice(g)
    if not rolled:
        if g.has(SHADOW_CORPORATION):
            ctx.fact("ruled", rule="electrical_storm", seat=g.active)
        return
    roll_corporation(g, ctx, g.active, rolled, submitted)


def roll_corporation(g: Game, ctx: Ctx, seat: int, rolled: int, submitted: int) -> None:
    g.corporation = [ctx.chance.roll(CORPORATION) for _ in range(rolled)]
    ctx.fact("corporation_rolled", to=[seat], seat=seat, faces=list(g.corporation))
    options = submit_options([(CORPORATION, f) for f in g.corporation], submitted, submitted)
    # Luba's once-a-turn reroll covers the corporation dice too (facts §8 q6, §8b.10): the
    # active player rolls them in secret behind her screen, as she rolls her own.
    if g.ability(seat, "luba") and not g.luba_reroll_used:
        options.append(("reroll",))
    # Always asked, even when every face is alike: an answer made for the seat would show
    # the table that its dice matched.
    ask(g, ctx, "corporation", {seat: options}, {"most": submitted}, auto=False)


def counted(g: Game, face: int) -> int:
    """Corporate Bribery: every submitted -1 counts as -2 (facts §6a; §8b.1 includes the
    corporation dice)."""
    return -2 if face == -1 and g.current_event_is("corporate_bribery") else face


def bribed(g: Game, faces: list) -> list:
    """The worth of the dice submitted to a malfunction (the base game counts their faces)."""
    if g.current_event_is("corporate_bribery"):
        return [counted(g, f) for f in faces]
    return faces


@RULES.answer("corporation")
def corporation_submitted(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    if option == ("reroll",):
        g.luba_reroll_used = True
        # The faces she set aside are never shown, like the dice kept hidden after a choice.
        ctx.fact("corporation_unseen", to=[], seat=seat, faces=list(g.corporation))
        ctx.fact("corporation_rerolled", seat=seat)
        roll_corporation(g, ctx, seat, len(g.corporation), data["most"])
        return
    faces = [g.corporation[i] for i in option[1:]]
    unseen = [f for i, f in enumerate(g.corporation) if i not in option[1:]]
    g.corporation = []  # back in the box: the unseen dice are never shown (ESOG)
    task = g.task
    task.corporation.extend(faces)
    task.success_total += sum(counted(g, f) for f in faces)
    ctx.fact("corporation_submitted", seat=seat, faces=faces)
    # Nobody may see the other dice until the game is over, when every fact is shown.
    ctx.fact("corporation_unseen", to=[], seat=seat, faces=unseen)
    ctx.fact("success_track", total=task.success_total, difficulty=task.difficulty)


# --- who may be voted on, and the actions that call the new votes ---

def capacity(g: Game) -> int:
    return CLEARANCE_SEATS[g.players]


def board_full(g: Game) -> bool:
    return len(g.clearances) >= capacity(g)


def amputation_targets(g: Game, caller: int | None) -> list[int]:
    """Another player (quarantined allowed), never a revealed Infected, one token each
    (ESOG Vote for amputation; facts §8b.3: not oneself)."""
    return [s for s in g.players_in_game() if s != caller and not g.seats[s].amputated]


def clearance_targets(g: Game) -> list[int]:
    """Nobody in quarantine; with the board full, only players already cleared (ESOG)."""
    if not g.evacuating():
        return []
    return [s for s in g.players_in_game() if not g.seats[s].quarantined
            and (s in g.clearances or not board_full(g))]


def takeoff_reason(g: Game) -> str | None:
    """Why the ship cannot take off now, or None (ESOG Vote to take off, Refueling)."""
    if not g.refuelled:
        return "refuelling"
    if not board_full(g):
        return "clearance_board_not_full"
    return None


def shadow_action_options(g: Game, seat: int, ordered: bool, exposed: bool, offer,
                          legal) -> None:
    """The three new kinds of CALL A VOTE (facts §8b.4): Research Lab blocks them all, the
    Evac Ship token clearance and take-off."""
    if not g.has(SHADOW_CORPORATION):
        return
    for target in amputation_targets(g, seat):
        offer(("amputate", target), "vote")
    if not g.evacuating():
        return
    ship = "blocked_by:" + EVAC_SHIP if EVAC_SHIP in g.outpost_board else None
    for target in clearance_targets(g):
        offer(("clearance", target), "vote", ship)
    offer(("takeoff",), "vote", ship or takeoff_reason(g))


@RULES.action("amputate")
def call_amputation(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    push(g, ("vote", {"target": option[1], "caller": seat, "kind": "amputation"}))


@RULES.action("clearance")
def call_clearance(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    push(g, ("vote", {"target": option[1], "caller": seat, "kind": "clearance"}))


@RULES.action("takeoff")
def call_takeoff(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    push(g, ("vote", {"target": None, "caller": seat, "kind": "takeoff"}))


# --- what the votes do ---

def amputate(g: Game, ctx: Ctx, seat: int, reason: str) -> None:
    """A permanent -1 die limit, even after a reveal; one token per player (ESOG)."""
    s = g.seats[seat]
    if s.amputated or s.revealed:
        ctx.fact("ruled", rule="cannot_amputate", seat=seat)
        return
    s.amputated = True
    ctx.fact("amputated", seat=seat, reason=reason)
    push(g, ("discard_excess", {"seat": seat}))


def clear(g: Game, ctx: Ctx, seat: int, reason: str) -> None:
    s = g.seats[seat]
    if s.quarantined or s.revealed or not g.evacuating():
        # A host correction (a quarantine) can come between a vote's call and its result.
        ctx.fact("ruled", rule="cannot_clear", seat=seat)
        return
    if seat not in g.clearances:
        g.clearances.append(seat)
        ctx.fact("cleared", seat=seat, reason=reason)


@RULES.settle("amputation")
def settle_amputation(g: Game, ctx: Ctx, target: int, result: str) -> None:
    if result == "amputate":
        amputate(g, ctx, target, "vote")


@RULES.settle("clearance")
def settle_clearance(g: Game, ctx: Ctx, target: int, result: str) -> None:
    if result == "clear":
        if target not in g.clearances and board_full(g):
            ctx.fact("ruled", rule="clearance_board_full", seat=target)
        else:
            clear(g, ctx, target, "vote")
    else:
        unclear(g, ctx, target, "vote")


@RULES.settle("takeoff")
def settle_takeoff(g: Game, ctx: Ctx, target: None, result: str) -> None:
    if result == "take_off":
        take_off(g, ctx)


def take_off(g: Game, ctx: Ctx) -> None:
    """The game ends at once; the cleared players' cards are checked: one Infected aboard
    and the Infected win, none and the Uninfected win (ESOG Evacuation)."""
    aboard = list(g.clearances)
    statuses = {str(s): g.seats[s].status for s in aboard}
    ctx.fact("took_off", seats=aboard, statuses=statuses)
    infected = sum(g.seats[s].infected for s in aboard)
    if infected == 1 and company_man_in_play(g):
        # "If a single infected player was on the ship, the company man is the sole winner"
        end_game(g, ctx, Side.COMPANY_MAN, "company_man_aboard")
    elif infected:
        end_game(g, ctx, Side.INFECTED, "infected_aboard")
    else:
        end_game(g, ctx, Side.UNINFECTED, "evacuated")


# --- the evacuation track and the refuelling card ---

def refuel(g: Game, ctx: Ctx) -> None:
    """The active player token is back with the start player: the first full round is over
    and the ship may take off (ESOG Refueling)."""
    if g.turn != g.players + 1 or not g.has(SHADOW_CORPORATION):
        return
    if g.evacuating() and not g.refuelled:
        g.refuelled = True
        ctx.fact("refuelled")
    # "After the refueling card is discarded" (ESOG Threats): the threats are dealt at that
    # moment even when the Evacuation Failure card has already recalled the ship, and the
    # refuelling card left with the boards; the Final Event still checks them.
    if g.has(THREATS_MODULE) and not g.threats:
        deal_threats(g, ctx)


def advance_evacuation(g: Game, ctx: Ctx, card: str) -> bool:
    """An EVACUATE task moves the cube, success or not; True when it reaches the vote."""
    if not g.evacuating() or not TASKS[card].evacuate:
        return False
    g.evacuation += 1
    ctx.fact("evacuation", position=g.evacuation)
    return g.evacuation >= EVACUATION_VOTE


@RULES.step("forced_evacuation_vote")
def forced_evacuation_vote(g: Game, ctx: Ctx, seat: int) -> None:
    """The active player must call a clearance vote, or a take-off vote if the ship is
    ready (ESOG Forced clearance and take off votes). Neither possible: skipped, said so."""
    push(g, ("reset_evacuation", {}))
    options = [("clearance", t) for t in clearance_targets(g)]
    if g.evacuating() and takeoff_reason(g) is None:
        options.append(("takeoff",))
    if not options:
        ctx.fact("ruled", rule="no_evacuation_vote", seat=seat)
        return
    ask(g, ctx, "evacuation_vote", {seat: options}, {})


@RULES.answer("evacuation_vote")
def evacuation_vote(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    # The options are the clearance and take-off actions' own: call them as the actions do.
    ACTIONS[option[0]](g, ctx, seat, option, False)


@RULES.step("reset_evacuation")
def reset_evacuation(g: Game, ctx: Ctx) -> None:
    if g.evacuating():
        g.evacuation = EVACUATION_START
        ctx.fact("evacuation", position=g.evacuation)


@RULES.answer("vote_order")
def vote_order(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    suspicion = [("ask_vote_target", {"seat": seat, "purpose": "suspicion"}),
                 ("reset_suspicion", {})]
    evacuation = [("forced_evacuation_vote", {"seat": seat})]
    push(g, *(suspicion + evacuation if option == ("suspicion",) else evacuation + suspicion))


def recall(g: Game, ctx: Ctx, seat: int) -> None:
    """The Evacuation Failure card: revealed at once; the evacuation boards and every
    clearance leave the game (ESOG Final event; facts §8b.5)."""
    ctx.fact("evacuation_recalled", seat=seat)
    g.evacuation, g.clearances = None, []
