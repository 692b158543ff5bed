"""Raw button levels in, clean presses out: what every button box shares.

A real button bounces for a few milliseconds, can be held down by a nervous thumb or stuck
under a box lid, and a seat with only BLACK and RED abstains by pressing both. Pads turns the
levels a box reports into presses a player meant. Time is passed in, never read, so the
tests drive it (gpiozero's mock pins ignore bounce_time, and a real clock makes flaky tests).

A seat with a GREY button counts a press the moment a button goes down: the fastest answer.
A seat without one counts BLACK or RED when the button comes back up, because until then it
may still become a chord: BLACK and RED down together count once, as GREY (abstain).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Callable, Collection

BLACK, RED, GREY = "black", "red", "grey"
COLOURS = (BLACK, RED, GREY)
_PARTNER = {BLACK: RED, RED: BLACK}


class NoticeKind(StrEnum):
    """What a Notice tells of the buttons."""
    STUCK = "stuck"  # a button held down too long: ignored until released
    FREED = "freed"  # a stuck button released
    CONNECTED = "connected"  # a box (re)connected and said hello
    DISCONNECTED = "disconnected"  # a box unplugged or gone quiet
    REFUSED = "refused"  # a box that speaks another protocol

    @property
    def whole_box(self) -> bool:
        """News of the whole box, not of one button: its held buttons are forgotten."""
        return self in (NoticeKind.CONNECTED, NoticeKind.DISCONNECTED, NoticeKind.REFUSED)


@dataclass(frozen=True)
class Press:
    """What every button source emits: a seat (from 0) pressed a colour."""
    seat: int
    colour: str
    time: float  # the source's clock when the press counted


@dataclass(frozen=True)
class Notice:
    """Something the table should know about the buttons (the kiosk words it from kind)."""
    kind: NoticeKind  # given as a NoticeKind or its word; any other word is a ValueError
    seat: int | None = None
    colour: str | None = None
    detail: str = ""  # plain English for the journal

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", NoticeKind(self.kind))


class _Button:
    __slots__ = ("down", "raw", "changed_at", "down_at", "stuck")

    def __init__(self) -> None:
        self.down = False  # the debounced level
        self.raw = False  # the last level the box reported
        self.changed_at = -math.inf  # when `down` last changed
        self.down_at = -math.inf
        self.stuck = False


class Pads:
    """Every seat's buttons on one box. Not thread-safe: one thread (or lock) feeds it."""

    def __init__(self, seats: int, grey: Collection[int],
                 on_press: Callable[[Press], None],
                 on_notice: Callable[[Notice], None] | None = None, *,
                 settle: float = 0.02, stuck_after: float = 8.0):
        if not 0 < seats <= 7:
            raise ValueError(f"a box has 1 to 7 seats, not {seats}")
        self.seats = seats
        self.grey = frozenset(grey)
        self.settle = settle
        self.stuck_after = stuck_after
        self._on_press = on_press
        self._on_notice = on_notice or (lambda notice: None)
        self._buttons = {(seat, colour): _Button()
                         for seat in range(seats) for colour in COLOURS}
        self._chorded: set[int] = set()  # seats whose BLACK+RED counted as GREY

    def level(self, seat: int, colour: str, pressed: bool, now: float) -> float | None:
        """A box reports that a button is now down (pressed) or up. Returns when tick() must
        next run for this button (a bounce has settled, or it may be stuck), or None."""
        button = self._buttons.get((seat, colour))
        if button is None:
            raise ValueError(f"no {colour} button at seat {seat} on a {self.seats}-seat box")
        button.raw = pressed
        if pressed != button.down and now >= button.changed_at + self.settle:
            self._change(seat, colour, button, now)
        # else: a bounce, or the level it already has; tick() reads it again once settled
        if button.raw != button.down:
            return button.changed_at + self.settle
        return button.down_at + self.stuck_after if button.down and not button.stuck else None

    def tick(self, now: float) -> float | None:
        """Accept levels that have been steady for `settle` and find stuck buttons. Returns
        when it next needs to be called, or None when nothing is pending."""
        due = math.inf
        for (seat, colour), button in self._buttons.items():
            if button.raw != button.down:
                if now >= button.changed_at + self.settle:  # the sum tick() returns
                    self._change(seat, colour, button, now)
                else:
                    due = min(due, button.changed_at + self.settle)
            if button.down and not button.stuck:
                if now >= button.down_at + self.stuck_after:
                    button.stuck = True
                    self._on_notice(Notice(NoticeKind.STUCK, seat, colour,
                                           f"seat {seat + 1} {colour} held down for "
                                           f"{self.stuck_after:g} s; ignored until released"))
                else:
                    due = min(due, button.down_at + self.stuck_after)
        return None if due == math.inf else due

    def _change(self, seat: int, colour: str, button: _Button, now: float) -> None:
        button.down = not button.down
        button.changed_at = now
        if button.down:
            button.down_at = now
            self._went_down(seat, colour, now)
        else:
            freed, button.stuck = button.stuck, False
            if freed:  # a stuck button's release is not a press
                self._on_notice(Notice(NoticeKind.FREED, seat, colour,
                                       f"seat {seat + 1} {colour} released"))
            self._came_up(seat, colour, now, counts=not freed)

    def _went_down(self, seat: int, colour: str, now: float) -> None:
        if seat in self.grey or colour == GREY:
            self._on_press(Press(seat, colour, now))
            return
        partner = self._buttons[(seat, _PARTNER[colour])]
        if partner.down and not partner.stuck and seat not in self._chorded:
            self._chorded.add(seat)
            self._on_press(Press(seat, GREY, now))

    def _came_up(self, seat: int, colour: str, now: float, counts: bool) -> None:
        if seat in self.grey or colour == GREY:
            return
        if seat in self._chorded:  # the chord already counted; wait for both to be up
            if not self._buttons[(seat, _PARTNER[colour])].down:
                self._chorded.discard(seat)
        elif counts:
            self._on_press(Press(seat, colour, now))
