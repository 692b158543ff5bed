"""Shadow Corporation's Threats module: a secret threat card for each player once the first
round is over, a public token for each requirement met as active player, and the Company's
penalty when the Final Event completes (ESOG THREATS; facts §8b.8).

The app sees every act the cards ask for, so it offers the token at the moment one is done
(the player may decline: an Uninfected who did another card's act should). Which token a
player takes is public; the card stays its owner's until the game is over.
"""
from __future__ import annotations

from .damage import end_game
from .data import COMPANY_MAN, THREAT_CARDS, THREATS_MODULE, WEAK, WILD_TOKENS
from .engine import Ctx, Rules, ask, push
from .state import Game, Side

RULES = Rules()

# The vote whose caller, voting RED as active player, meets a card's requirement.
VOTE_THREATS = {"quarantine": "isolate_specimen", "amputation": "retrieve_sample"}


def deal_threats(g: Game, ctx: Ctx) -> None:
    """After the refuelling card is discarded, a card to each player not revealed; the rest
    go back to the box unseen (ESOG Threats, Gameplay)."""
    deck = ctx.chance.shuffle(sorted(c for c, n in THREAT_CARDS.items() for _ in range(n)))
    for seat in g.players_in_game():
        g.threats[seat] = deck.pop()
        ctx.fact("threat_dealt", to=[seat], seat=seat, threat=g.threats[seat])


def tokens_left(g: Game) -> dict:
    left = dict(THREAT_CARDS, wild=WILD_TOKENS)
    for threat, wild in g.threat_tokens.values():
        left["wild" if wild else threat] -= 1
    return left


def may_claim(g: Game, seat: int) -> bool:
    """Only the active player, holding a card and no token yet (ESOG: "A player may only
    ever take 1 threat token")."""
    return g.has(THREATS_MODULE) and seat == g.active and seat in g.threats \
        and seat not in g.threat_tokens


def after_ballots(g: Game, ctx: Ctx, data: dict, shown: dict) -> None:
    """Isolate Specimen and Retrieve Sample: the active player called the vote on another
    player and voted RED (forced or not, facts §8b.8)."""
    caller, threat = data.get("caller"), VOTE_THREATS.get(data.get("kind", "quarantine"))
    if threat and may_claim(g, caller) and data.get("target") != caller \
            and shown.get(caller) == WEAK:
        push(g, ("threat_claim", {"seat": caller, "threat": threat}))


def after_submission(g: Game, ctx: Ctx, seat: int) -> None:
    """Act Recklessly: every die the active player held went into one malfunction."""
    if may_claim(g, seat) and not g.seats[seat].all_dice:
        push(g, ("threat_claim", {"seat": seat, "threat": "act_recklessly"}))


@RULES.action("expose")
def expose(g: Game, ctx: Ctx, seat: int, option: tuple, ordered: bool) -> None:
    """Exposure: the active player shows their status card to another player, during their
    turn and besides their action, quarantined or not (facts §8b.10). It is offered with
    the action, once a turn; the action is then asked again."""
    target = option[1]
    ctx.fact("exposure", seat=seat, target=target)
    ctx.fact("status_shown", to=[target], seat=seat, status=g.seats[seat].status)
    claim = [("threat_claim", {"seat": seat, "threat": "exposure"})] if may_claim(g, seat) \
        else []
    push(g, *claim, ("action_phase", {"seat": seat, "ordered": ordered, "exposed": True}))


def expose_options(g: Game, seat: int, ordered: bool) -> list:
    if not g.has(THREATS_MODULE) or ordered or seat != g.active:
        return []
    return [("expose", t) for t in g.players_in_game() if t != seat]


def exposure_offered(g: Game, seat: int, ordered: bool, exposed: bool, offer, legal) -> None:
    """Offered with the action until shown once this turn: the action is still to come."""
    if not exposed:
        legal.extend(expose_options(g, seat, ordered))


@RULES.step("threat_claim")
def threat_claim(g: Game, ctx: Ctx, seat: int, threat: str) -> None:
    if g.outcome is None and may_claim(g, seat):
        ask(g, ctx, "threat_claim", {seat: [("claim",), ("pass",)]}, {"threat": threat})


@RULES.answer("threat_claim")
def threat_claimed(g: Game, ctx: Ctx, seat: int, option: tuple, data: dict) -> None:
    threat = data["threat"]
    if option == ("pass",):
        ctx.fact("threat_passed", seat=seat, threat=threat)
        return
    left = tokens_left(g)
    if left[threat] or left["wild"]:
        # The last token of a kind gone: a wild one on that space (ESOG Infected players).
        wild = not left[threat]
        g.threat_tokens[seat] = (threat, wild)
        ctx.fact("threat_token", seat=seat, threat=threat, wild=wild)
    else:
        ctx.fact("ruled", rule="no_threat_token", seat=seat)


def threats_missed(g: Game, ctx: Ctx) -> bool:
    """At the Final Event's completion every Uninfected shows their card and token; one
    wrong or missing and the Infected win (ESOG Ending the game). The Company Man, like the
    Infected, need not act on his card."""
    if not g.has(THREATS_MODULE):
        return False
    missed = [seat for seat, threat in sorted(g.threats.items())
              if not g.seats[seat].infected and g.seats[seat].status != COMPANY_MAN
              and g.threat_tokens.get(seat, (None,))[0] != threat]
    if missed:
        ctx.fact("threats_missed", seats=missed)
        end_game(g, ctx, Side.INFECTED, "threat_missed")
    return bool(missed)


def threats_view(g: Game, view: dict, over: bool) -> None:
    """The tokens are public; the cards are their holders' until the game is over."""
    if g.has(THREATS_MODULE):
        view["threats"] = {"tokens": {str(s): list(t) for s, t in g.threat_tokens.items()},
                           "left": tokens_left(g), "dealt": bool(g.threats),
                           "cards": ({str(s): c for s, c in g.threats.items()} if over
                                     else None)}


def position_threats(g: Game, ctx: Ctx, p) -> None:
    """A described position past the refuelling card holds its threats: the position's
    cards, or cards dealt at random to every player not revealed, as in play."""
    if THREATS_MODULE in p.variants and p.refuelled:
        if any(s.threat for s in p.seats):
            for i, s in enumerate(p.seats):
                if s.threat:
                    g.threats[i] = s.threat
                    ctx.fact("threat_dealt", to=[i], seat=i, threat=s.threat)
        else:
            deal_threats(g, ctx)
