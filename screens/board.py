"""The board during play: tracks, seats, the banner of what the game waits for, the live
panel (malfunction or vote), what to mirror on the physical board, and the log. Every pane
is drawn from the public view; a seat's dice are never in it until the game is over."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from .pane import Pane, heading
from .panels import live_panel
from .words import name_of, say, seat_label, sentences

TRACK_LENGTH = 6  # six tokens of any kind end the game
SUSPICION_VOTE = 4
FAILURE_KEYS = {"-1": "minus_1", "any+": "any_plus", "-2": "minus_2", "any-": "any_minus",
                "breached": "breached"}


def _row(text: Text, label: str, value: str = "", style: str = "") -> None:
    text.append(f"\n{label} ", "bold")
    text.append(value, style)


def _dots(text: Text, have: int, need: int, style: str) -> None:
    text.append("●" * have, style)
    text.append("○" * max(need - have, 0), "bright_black")
    text.append(f" {have}/{need}")


def tracks(view: dict, lang: str) -> Text:
    t = Text(no_wrap=False)
    shield = view["shield"]
    heading(t, say(lang, "board.shield"))
    t.append("\n")
    _dots(t, shield["tokens"], TRACK_LENGTH, "bold red")
    condition = shield["failure_condition"]
    t.append("\n" + (say(lang, "board.no_shield_test") if condition is None else
                     say(lang, "board.fails_on",
                         condition=say(lang, f"failure.{FAILURE_KEYS[condition]}"))),
             "yellow" if condition else "")

    outpost = view["outpost"]
    t.append("\n")
    heading(t, say(lang, "board.outpost"))
    t.append(f" {len(outpost['tokens'])}/{TRACK_LENGTH}")
    t.append("\n" + (", ".join(name_of(lang, "token", k) for k in outpost["tokens"]) or "—"))
    if outpost["blocked_actions"]:
        _row(t, say(lang, "board.blocked"),
             ", ".join(name_of(lang, "action", a) for a in outpost["blocked_actions"]),
             "red")

    fatigue = view["fatigue"]
    t.append("\n")
    heading(t, say(lang, "board.fatigue"))
    t.append(f" {len(fatigue['tokens'])}/{TRACK_LENGTH}")
    t.append("\n" + (", ".join(name_of(lang, "character", c) for c in fatigue["tokens"])
                     or "—"))
    if fatigue["fatigued_seats"]:
        _row(t, say(lang, "board.fatigued"),
             ", ".join(seat_label(view, s) for s in fatigue["fatigued_seats"]), "yellow")

    _row(t, say(lang, "board.sabotage"),
         name_of(lang, "area", view["sabotage"]) if view["sabotage"] else "—",
         "bold red" if view["sabotage"] else "")
    t.append("\n")
    heading(t, say(lang, "board.suspicion"))
    t.append(" ")
    for space in range(1, SUSPICION_VOTE + 1):
        label = say(lang, "board.vote_space") if space == SUSPICION_VOTE else str(space)
        t.append(f" {label} ", "reverse bold" if space == view["suspicion"] else "")
    _row(t, say(lang, "board.commander"), seat_label(view, view["commander"]), "bold blue")
    _events(t, view, lang)
    pool = view["pool"]
    _row(t, say(lang, "board.pool"),
         say(lang, "board.pool_counts", strong=pool["strong"], weak=pool["weak"],
             commander=pool["commander"]))
    lost = {colour: n for colour, n in view.get("lost", {}).items() if n}
    if lost:  # the host said a die fell under the table: the pool is short by that much
        _row(t, say(lang, "board.lost"), ", ".join(
            f"{n} {say(lang, 'die.' + colour)}" for colour, n in lost.items()), "yellow")
    _row(t, say(lang, "board.task_deck"),
         say(lang, "board.deck_counts", deck=view["task_deck_size"],
             discard=view["task_discard_size"]))
    return t


def _events(t: Text, view: dict, lang: str) -> None:
    t.append("\n")
    heading(t, say(lang, "board.event"))
    event = view["event"]
    if event:
        t.append(f" {name_of(lang, 'card', event['card'])}\n")
        _dots(t, event["cubes"], event["needed"], "bold green")
    else:
        t.append(" —")
    if view["completed_events"]:
        _row(t, say(lang, "board.completed"),
             ", ".join(name_of(lang, "card", c) for c in view["completed_events"]), "green")
    final = view["final_event"]
    t.append("\n")
    heading(t, say(lang, "board.final_event"))
    t.append(f" {name_of(lang, 'card', final['card'])}"
             + (f" ({say(lang, 'board.final_active')})" if final["active"] else "") + "\n")
    _dots(t, final["cubes"], final["needed"], "bold magenta")


def seats(view: dict, lang: str) -> Text:
    t = Text()
    waiting = view["waiting"] or {"seats": [], "decision": None}
    for s in view["seats"]:
        i = s["seat"]
        if i:
            t.append("\n")
        t.append("▶ " if s["active"] else "  ", "bold yellow")
        t.append(f"{seat_label(view, i):<12.12}", "bold reverse" if s["active"] else "bold")
        t.append(f" {name_of(lang, 'character', s['character'])}")
        t.append("\n    ")
        if s["commander"]:
            t.append(f"{say(lang, 'board.commander_mark')} ", "bold blue")
        t.append(say(lang, "board.die_limit", limit=s["die_limit"]))
        if s["die_tokens"]:
            t.append(f" ({s['die_tokens']:+d})")
        if s["quarantined"]:
            t.append(f" {say(lang, 'board.quarantined')}", "bold red")
        if s["fatigued"]:
            t.append(f" {say(lang, 'board.fatigued_mark')}", "yellow")
        if s["revealed"] and s.get("status"):
            t.append(f" {name_of(lang, 'status', s['status'])}", "bold magenta")
        if i in waiting["seats"]:
            chosen = i in waiting.get("chosen", ())
            t.append(f" {say(lang, 'board.chosen' if chosen else 'board.deciding')}",
                     "green" if chosen else "bold yellow")
    return t


def free_seats(kiosk: dict, lang: str) -> Text:
    """A seat whose phone was lost and re-bound has a code again: say where to find it."""
    free = [str(i + 1) for i, token in enumerate(kiosk["seat_tokens"]) if token]
    return Text.styled("\n" + say(lang, "board.free_seats", seats=", ".join(free)),
                       "bold yellow") \
        if free else Text("")


# Room notices that matter during play: a seat's phone put out by a re-bind, or the host
# replaced at the Pi. Either is said on the board's banner, so it never happens unseen.
PLAY_NOTICES = {"seat_rebound": "notice.seat_rebound_play", "host_replaced": "notice.host_replaced"}


def play_notice(kiosk: dict, lang: str) -> Text:
    notice = kiosk["notices"][-1] if kiosk["notices"] else None
    if notice is None or notice["k"] not in PLAY_NOTICES:
        return Text("")
    seat = notice.get("seat")
    names = {s["seat"]: s["name"] for s in kiosk["seats"]}
    return Text.styled("\n\n" + say(lang, PLAY_NOTICES[notice["k"]], name=names.get(seat, ""),
                                     seat=seat + 1 if seat is not None else ""), "bold yellow")


def banner(view: dict, lang: str, sentences: dict) -> Text:
    said = sentences.get("banner")
    if said:
        return Text.styled(said, "bold")
    waiting = view["waiting"]
    if waiting is None:
        return Text("")
    names = ", ".join(seat_label(view, s) for s in waiting["seats"])
    return Text.styled(say(lang, "board.waiting_for", seats=names,
                    decision=name_of(lang, "decision", waiting["decision"])), "bold")


def lines(items: list, empty: str) -> Text:
    return Text("\n".join(str(x) for x in items) if items else empty)


class BoardView(Vertical):
    def compose(self) -> ComposeResult:
        yield Pane(id="banner")
        with Horizontal(id="board-body"):
            yield Pane(id="tracks")
            yield Pane(id="seats")
            with Vertical(id="board-right"):
                yield Pane(id="live")
                yield Pane(id="mirror")
                yield Pane(id="log")

    def show(self, kiosk: dict, lang: str) -> None:
        view = kiosk["game"]
        said = sentences(view, lang)
        q = self.query_one
        q("#banner", Pane).show(banner(view, lang, said) + play_notice(kiosk, lang))
        q("#tracks", Pane).show(tracks(view, lang), say(lang, "board.tracks_title"))
        q("#seats", Pane).show(seats(view, lang) + free_seats(kiosk, lang),
                               say(lang, "board.seats_title"))
        title, body = live_panel(view, lang)
        q("#live", Pane).show(body, title)
        q("#mirror", Pane).show(lines([f"• {m}" for m in said.get("mirror", [])],
                                      say(lang, "board.nothing_to_mirror")),
                                say(lang, "board.mirror_title"))
        q("#log", Pane).show(lines(list(reversed(said.get("log", []))), "—"),
                             say(lang, "board.log_title"))
