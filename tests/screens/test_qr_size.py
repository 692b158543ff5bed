"""The join screen sizes its grid from qr.size before any code is drawn: the size it plans
for must be the size of the code it then draws, or a seat's code is cut off at its edge."""
from __future__ import annotations

from screens.qr import half_block_lines, size


def test_the_planned_size_is_the_drawn_size_across_versions():
    # Lengths from a bare address to long URLs: versions 1 to 10 of the code, whose module
    # count grows by 4 a version, so both the columns and the padded last line change.
    drawn_sizes = set()
    for length in range(1, 280, 9):
        data = "http://192.168.1.23:8080/s#" + "x" * length
        lines = half_block_lines(data)
        assert size(data) == (len(lines[0]), len(lines)), data
        drawn_sizes.add(size(data))
    assert len(drawn_sizes) >= 8  # the lengths did cross many versions


def test_a_wifi_code_and_a_seat_code_plan_their_own_sizes():
    for data in ("WIFI:T:WPA;S:darkmoon-table;P:correct-horse-battery;;",
                 "http://[fe80::1ff:fe23:4567:890a]:8080/s#" + "y" * 22):
        lines = half_block_lines(data)
        assert size(data) == (len(lines[0]), len(lines))
