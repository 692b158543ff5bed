"""Power cuts (DESIGN, "Every acknowledged input survives kill -9 and a power cut").

The installed `darkmoon-companion --kiosk` runs in a pseudo-terminal, as the systemd unit runs
it. Phones play whole games against it over HTTP (a host, one phone per seat, a board viewer,
every one with its event stream open), and the product is killed with SIGKILL at random
moments, fifty times, then started again on the same data directory and port. After each
restart:

- the store holds every acknowledged command (a `200` a phone read), and beyond that only
  commands that were in flight at the cut (each at most once, replayed as a legal
  continuation with its own recorded dice): nothing lost, no state nobody could reach;
- what every screen showed at the cut is in the store exactly as shown (nobody is told of a
  command before it is on disk);
- every phone and the board gets `200` and exactly the state the store holds: a phone's
  session died with the Pi, so it says hello again with the code it holds and the same phone
  secret (its page's localStorage) and still holds its seat or the host role; when that is
  the last acknowledged state, each payload is the very one its stream showed before the cut
  (dice rolled and not submitted included: no re-roll);
- every event stream reconnects (a seat's and the host's sealed anew), and its first message
  is the whole current payload, equal to the view asked for.

Play goes on after each restart until the game is over, then a new game is set up. The last
game is played to its end and the product stopped with SIGTERM, as systemd stops it.

SIGKILL leaves the kernel's page cache alone: this shows the product's part (an answer only
after the commit, a restart that resumes exactly, no half-applied command). That the disk
keeps what was synced at a real power loss rests on SQLite's synchronous=FULL and the drive.

A failure names its seed: DARKMOON_POWER_SEED=<seed> replays the same plan of cuts (kinds,
counts, delays), and the bots draw from the same seed; but the dice are the product's own (the
operating system's randomness, as at a real table) and the instant a kill lands depends on
the machine's speed, so a replay aims at the same kinds of moment, not the same game.
"""
from __future__ import annotations

import os
import random
import time
from collections import Counter

from .bots import rolls_in_progress
from .product import Product, free_port
from .rig import Cut, Plan, Rig
from .stored import Stored, plain

SEED = int(os.environ.get("DARKMOON_POWER_SEED") or random.SystemRandom().randrange(10**6))
# Fifty cuts: most at random instants, the rest aimed at the moments that matter.
KINDS = (["timer"] * 16 + ["mid_request"] * 10 + ["fsync"] * 8 + ["after_ack"] * 6
         + ["idle"] * 5 + ["roll"] * 5)


def check_store(rig: Rig, cut: Cut, stored: Stored, figures: Counter) -> dict:
    """The dead product's files: the room and every acknowledged command are there, and any
    more is an in-flight command. Returns each audience's view at the stored state."""
    lobby = stored.room["lobby"]
    assert stored.game_id == rig.game_id, "the store holds another game"
    assert [s["token"] for s in lobby["seats"]] == rig.seat_tokens, "the seat codes changed"
    assert [s["phone"] for s in lobby["seats"]] == \
        [rig.phones[i].room_name for i in range(rig.players)], "a seat's claim was lost"
    assert stored.room["host_phone"] == rig.host.room_name, "the host's claim was lost"
    acked, last = cut.acked, stored.last
    assert last >= acked, (f"acknowledged state {acked} lost; "
                           f"the store ends at state {last}")
    unanswered = [(seat, plain(command)) for seat, command in cut.inflight]
    for state_id in range(acked + 1, last + 1):
        event = stored.event(state_id)
        sent = [(seat, command) for seat, command in unanswered
                if seat == event["actor"] and command["decision"] == event["command"]["decision"]
                and command["option"] == event["command"]["option"]]
        assert sent, (f"state {state_id} holds {event['actor']} "
                      f"{event['command']}, which no phone had in flight ({unanswered})")
        unanswered.remove(sent[0])
    # Replaying plays every stored command again with its recorded dice: a state the rules
    # cannot reach from the acknowledged one fails here.
    expected = stored.views_at(last, rig.players)
    # What every screen showed at the cut is in the store, as it was shown: nobody was told
    # of a command before it was on disk.
    at = {}
    for audience, payload in cut.shown.items():
        state_id = payload["view"]["state_id"]
        assert state_id <= last, (f"{audience} was shown state {state_id}, "
                                  f"but the store ends at {last}")
        if state_id not in at:
            at[state_id] = expected if state_id == last else \
                stored.views_at(state_id, rig.players)
        assert payload["view"] == at[state_id][audience], \
            f"{audience} was shown state {state_id} otherwise than the store holds it"
    figures[f"cuts planned {cut.kind}"] += 1
    if last > acked:
        figures[f"cuts planned {cut.kind}: after an unanswered command was stored"] += 1
    if cut.inflight:
        figures["cuts with commands in flight"] += 1
        figures["in-flight commands: not stored"] += len(cut.inflight) - (last - acked)
        figures["in-flight commands: stored, never answered"] += last - acked
    elif any(p["view"]["state_id"] < acked for p in cut.shown.values()):
        figures["cuts after an answer, before every screen had it"] += 1
    else:
        figures["cuts with every screen up to date"] += 1
    return expected


async def check_restart(rig: Rig, cut: Cut, stored: Stored, expected: dict,
                        figures: Counter) -> None:
    """Every phone says hello again with its code and secret, and sees the stored state; at
    the last acknowledged state, exactly what it saw before the cut."""
    sessions = {a: rig.phone(a).code(rig.token(a)).sid for a in rig.audiences if a != "board"}
    first = await rig.first_views()
    for audience in rig.audiences:
        status, got = await rig.view(audience)
        assert status == 200, f"{audience} is refused after the restart: {got}"
        assert first[audience] == got, \
            f"the {audience} stream's first message after the restart is not the view asked"
        if audience != "board":  # a new session: the Pi forgot the old one when it died
            had = sessions[audience]
            assert had is not None and rig.phone(audience).code(rig.token(audience)).sid != had
            figures["phones that said hello again and kept their place"] += 1
        assert got["view"] == expected[audience], \
            f"{audience} is shown something other than the stored state {stored.last}"
        before = cut.seen.get(stored.last, {}).get(audience)
        if before is None:
            figures["views checked against the store only"] += 1
            continue
        if rolls_in_progress(before):
            assert rolls_in_progress(got) == rolls_in_progress(before), \
                f"seat {audience}'s roll in progress changed over the restart"
            figures["rolls in progress kept"] += 1
        assert got == before, f"{audience} sees another payload than before the cut"
        figures["payloads equal to before the cut"] += 1


async def test_every_acknowledged_command_survives_50_power_cuts_and_phones_reconnect(tmp_path):
    print(f"power-cut seed {SEED} (DARKMOON_POWER_SEED={SEED} replays it)")
    began = time.perf_counter()
    plans = random.Random(f"{SEED}:plans")  # apart from the bots' draws, which follow the dice
    product = Product(tmp_path / "data", free_port())
    rig = Rig(product, random.Random(f"{SEED}:bots"))
    figures: Counter = Counter()
    kinds = list(KINDS)
    plans.shuffle(kinds)
    where = f"seed {SEED}, before the first cut"
    try:
        await product.start()
        rig.connect()
        await rig.claim_host()
        for n, kind in enumerate(kinds, 1):
            plan = Plan.draw(kind, plans)
            where = f"seed {SEED}, cut {n} {plan}"
            await rig.play_until_cut(plan)
            await rig.disconnect()
            cut = rig.last_cut
            stored = Stored(product.copy_store(tmp_path / "copy"))
            try:
                expected = check_store(rig, cut, stored, figures)
                await product.start()
                rig.connect()
                await check_restart(rig, cut, stored, expected, figures)
                rig.ledger.now_at(stored.last)  # what every screen now shows
            finally:
                stored.close()
        where = f"seed {SEED}, after the last cut: the game played on to its end"
        await rig.play_until_cut(None)
        final = rig.ledger.latest["board"]
        await rig.disconnect()
        assert product.stop() == 0, "the product did not stop cleanly on SIGTERM"
    except Exception as error:
        code = product.proc.poll() if product.proc else None
        raise AssertionError(f"{error!r}\nthe product's exit code: {code}; "
                             f"its screen:\n{product.screen()}") from error
    finally:
        await rig.disconnect()
        product.cut()
    # The whole last game, across every restart, is the one the store rebuilds.
    stored = Stored(product.store_path)
    try:
        assert final["view"]["outcome"] is not None
        assert final["view"] == stored.views_at(stored.last, rig.players)["board"]
    finally:
        stored.close()
    assert product.starts == len(KINDS) + 1
    assert figures["rolls in progress kept"] >= 1, "no cut came with a roll in progress"

    figures.update({"restarts": product.starts - 1, "games": rig.games,
                    "commands acknowledged": rig.ledger.acks,
                    "votes refused in a race": rig.ledger.refusals})
    starts, trips = product.start_seconds, sorted(rig.round_trips)
    print(f"{len(KINDS)} cuts in {time.perf_counter() - began:.1f} s; product start to "
          f"answering: mean {sum(starts) / len(starts):.2f} s, worst {max(starts):.2f} s; "
          f"command round trip: median {1000 * trips[len(trips) // 2]:.1f} ms, "
          f"p90 {1000 * trips[len(trips) * 9 // 10]:.1f} ms")
    for name, count in sorted(figures.items()):
        print(f"  {name}: {count}")
