"""Pads: what a player means by what their fingers did to the buttons (hardware/pad.py).

Time is injected; each test plays a sequence of levels as a box would report them."""
from __future__ import annotations

import json

import pytest

from hardware.pad import BLACK, GREY, RED, Notice, NoticeKind, Pads, Press


class Box:
    """A Pads with its output recorded, on a 3-seat box where seat 0 has a GREY button."""

    def __init__(self, grey=(0,), settle=0.02, stuck_after=8.0):
        self.presses: list[Press] = []
        self.notices: list[Notice] = []
        self.pads = Pads(3, grey, self.presses.append, self.notices.append,
                         settle=settle, stuck_after=stuck_after)

    def at(self, now, seat, colour, pressed):
        self.pads.level(seat, colour, pressed, now)
        return self

    def counted(self):
        return [(p.seat, p.colour) for p in self.presses]


def test_a_seat_with_grey_counts_the_press_as_the_button_goes_down():
    box = Box().at(1.0, 0, BLACK, True)
    assert box.presses == [Press(0, BLACK, 1.0)]  # no wait for the release: fastest answer
    box.at(1.1, 0, BLACK, False)
    assert box.counted() == [(0, BLACK)]  # the release adds nothing


def test_a_seat_without_grey_counts_black_or_red_when_released():
    box = Box().at(1.0, 1, RED, True)
    assert box.presses == []  # it may still become BLACK+RED
    box.at(1.2, 1, RED, False)
    assert box.presses == [Press(1, RED, 1.2)]


def test_black_and_red_held_together_abstain_once():
    """DESIGN.md: GREY (or both held) = abstain."""
    box = Box().at(1.0, 1, BLACK, True).at(1.05, 1, RED, True)
    assert box.counted() == [(1, GREY)]
    box.at(1.3, 1, BLACK, False).at(1.35, 1, RED, False)
    assert box.counted() == [(1, GREY)]  # letting go of the chord counts nothing more
    box.at(2.0, 1, BLACK, True).at(2.1, 1, BLACK, False)
    assert box.counted() == [(1, GREY), (1, BLACK)]  # and the seat works as before


def test_a_bounce_counts_once_and_the_settled_level_is_read_later():
    box = Box(grey=(0, 1, 2))
    for i, level in enumerate([True, False, True, False, True]):  # 5 edges in 4 ms
        box.at(1.0 + i * 0.001, 2, BLACK, level)
    assert box.counted() == [(2, BLACK)]
    box.at(1.2, 2, BLACK, False)  # the real release, after the bounce settled
    box.at(1.201, 2, BLACK, True)  # ... which bounces too
    box.at(1.202, 2, BLACK, False)
    assert box.pads.tick(1.3) is None  # nothing pending, nothing counted again
    assert box.counted() == [(2, BLACK)]
    box.at(2.0, 2, BLACK, True)
    assert box.counted() == [(2, BLACK), (2, BLACK)]  # a real second press counts


def test_a_release_lost_in_a_bounce_is_picked_up_by_tick():
    box = Box(grey=())
    box.at(1.0, 0, RED, True).at(1.005, 0, RED, False)  # a tap shorter than the settle time
    assert box.presses == []
    due = box.pads.tick(1.01)
    assert due == pytest.approx(1.02)  # it asks to be called when the level has settled
    box.pads.tick(due)
    assert box.counted() == [(0, RED)]


def test_a_held_button_is_stuck_once_counts_nothing_and_others_still_work():
    box = Box(stuck_after=8.0).at(0.0, 1, BLACK, True)
    assert box.pads.tick(5.0) == 8.0
    box.pads.tick(8.0)
    box.pads.tick(30.0)
    assert [(n.kind, n.seat, n.colour) for n in box.notices] == [("stuck", 1, BLACK)]
    box.at(31.0, 1, RED, True).at(31.1, 1, RED, False)  # no chord with a stuck button
    box.at(32.0, 0, RED, True)
    assert box.counted() == [(1, RED), (0, RED)]
    box.at(40.0, 1, BLACK, False)
    assert [n.kind for n in box.notices] == ["stuck", "freed"]
    assert box.counted() == [(1, RED), (0, RED)]  # the stuck button's release is no press


def test_two_seats_pressing_together_both_count_as_themselves():
    box = Box(grey=(0, 1, 2))
    box.at(1.0, 0, BLACK, True).at(1.0, 1, RED, True).at(1.001, 0, BLACK, False)
    box.at(1.001, 1, RED, False).at(1.002, 0, BLACK, True)
    assert sorted(box.counted()) == [(0, BLACK), (1, RED)]


def test_a_button_the_box_does_not_have_is_refused():
    box = Box()
    with pytest.raises(ValueError, match="seat 3"):
        box.at(1.0, 3, BLACK, True)
    with pytest.raises(ValueError):
        box.at(1.0, 0, "blue", True)
    assert box.presses == []


def test_a_notice_of_a_kind_the_kiosk_cannot_word_is_refused_where_it_is_made():
    """A box's notice is worded on the kiosk from its kind: a misspelt kind would say nothing
    there (nor clear a trouble), so it fails where the notice is made, not on the screen."""
    with pytest.raises(ValueError):
        Notice("unplugged", detail="a word no box notice has")
    assert Notice("disconnected").kind is NoticeKind.DISCONNECTED


def test_a_notice_kind_is_the_same_word_in_the_log_and_in_json():
    notice = Notice(NoticeKind.STUCK, 1, BLACK, "held")
    assert notice.kind == "stuck" and f"{notice.kind}" == "stuck"
    assert json.dumps({"kind": notice.kind}) == '{"kind": "stuck"}'
    assert [k for k in NoticeKind if k.whole_box] == ["connected", "disconnected", "refused"]
