"""The table with no kiosk at all: the table host (companion/core/host.py) alone wires the
seat buttons, their LEDs and the phones' web server to the room, as on a Pi whose screen is
the /board page on a TV (`darkmoon-companion --headless`).

A whole game is played in a process that never imports Textual: the participations and
votes on a GPIO box (gpiozero's mock pins, driven from another thread as lgpio's callbacks
would be), every other decision on the seats' phones over real HTTP (sealed, by the reference
client companion/web/client.py, as a phone's page seals it), and the LEDs checked
against who the game waits for after every move. `demo --headless` plays its bots' game to
the end and exits 0; the bare `--headless` serves until SIGTERM, then stops cleanly.
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["Ana", "Ben", "Cai", "Dee"]
WAIT = 10.0  # seconds: only a guard against a hang, never a measure of speed
COLOURS = {"participation": {"in": "black", "out": "red"},
           "vote": {"strong": "black", "weak": "red", "abstain": "grey"}}


def child_env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- the game, in a child process (run as a script: see the end of this file) ---

class Box:
    """A four-seat GPIO box on mock pins: BLACK, RED, GREY and an LED per seat (a GREY
    button counts a press on the way down), with its debounce clock in our hands."""

    def __init__(self):
        from gpiozero import Device
        from gpiozero.pins.mock import MockFactory

        from hardware.config import GpioSeat
        from hardware.gpio import GpioSource
        Device.pin_factory = self.factory = MockFactory()
        self.pins = [GpioSeat(black=4 + 4 * n, red=5 + 4 * n, grey=6 + 4 * n, led=7 + 4 * n)
                     for n in range(len(NAMES))]
        self.now = 100.0
        self.source = GpioSource(self.pins, pin_factory=self.factory, ticker=False,
                                 clock=lambda: self.now)

    def tap(self, seat: int, colour: str) -> None:
        """A finger on a button and off again (on the caller's thread, as a driver's)."""
        pin = self.factory.pin(getattr(self.pins[seat], colour))
        pin.drive_low()  # buttons pull up: low is pressed
        self.now += 0.05
        pin.drive_high()
        self.now += 0.05

    def lit(self) -> set[int]:
        return {seat for seat, pins in enumerate(self.pins) if self.factory.pin(pins.led).state}


async def until(check, what: str) -> None:
    began = time.monotonic()
    while not check():
        if time.monotonic() - began > WAIT:
            raise AssertionError(f"never: {what}")
        await asyncio.sleep(0.001)


async def play_whole_game(folder: str) -> dict:
    import aiohttp

    from companion.core.host import TableHost
    from companion.core.room import Room
    from companion.core.store import EventStore
    from companion.tools.simulate import choice_for
    from companion.web.client import SealedPhone
    box = Box()
    room = Room(EventStore(os.path.join(folder, "games.db")), seed=5, bot_delay=0)
    host = TableHost(room, buttons=box.source, port=0, listen_host="127.0.0.1")
    await host.start()
    address, port = host.address
    base = f"http://{address}:{port}"
    http = aiohttp.ClientSession()

    def phone(token: str) -> SealedPhone:
        """A phone that scanned `token`'s code."""
        return SealedPhone(http, base, token)

    loop, rng = asyncio.get_running_loop(), random.Random(5)
    counts = {"presses": 0, "phone_commands": 0, "lit_before_a_press": 0}
    try:
        hosting = phone(room.host_token)
        assert await hosting.ok("claim") == {"host": True}
        await hosting.ok("game", {"setup": {"names": NAMES}})
        seats = []
        for seat, token in enumerate(room.kiosk_view()["seat_tokens"]):
            seats.append(phone(token))
            assert await seats[-1].ok("claim") == {"seat": seat}
        await hosting.ok("start")
        await until(lambda: room.table is not None, "the deal")
        assert box.lit() == set(room.lit_seats())
        while not room.table.over:
            waiting = room.public_view()["waiting"]
            to_choose = [s for s in waiting["seats"] if s not in waiting.get("chosen", [])]
            seat = to_choose[0]
            command = choice_for(room.table.state, seat, rng)
            before = room.table.state_id
            colour = COLOURS.get(command["decision"], {}).get(command["option"][0])
            if colour is not None and len(command["option"]) == 1:
                # who the game waits for is lit, and nobody else; the press is that seat's
                assert box.lit() == set(to_choose), (box.lit(), waiting)
                counts["lit_before_a_press"] += 1
                await loop.run_in_executor(None, box.tap, seat, colour)
                counts["presses"] += 1
                await until(lambda: room.table.state_id != before,
                            f"seat {seat + 1}'s {colour} press played")
            else:
                await seats[seat].ok("command", {**command, "state_id": room.table.state_id})
                counts["phone_commands"] += 1
            await host.settle()
            assert box.lit() == set(room.lit_seats()), "the LEDs follow the game"
        async with http.get(f"{base}/api/board") as response:  # public: plain
            assert response.status == 200, await response.text()
            counts["outcome"] = (await response.json())["view"]["outcome"]
        counts["lit_at_the_end"] = sorted(box.lit())
    finally:
        await http.close()
        await host.stop()
        await room.close()
        room.store.close()
    counts["leds_after_stop"] = sorted(box.lit())
    counts["textual_imported"] = any(name.split(".")[0] == "textual" for name in sys.modules)
    return counts


# --- the tests ---

def test_a_whole_game_plays_on_buttons_and_phones_with_no_kiosk(tmp_path):
    import children
    done = children.run([sys.executable, __file__, str(tmp_path)], capture_output=True,
                        timeout=300, env=child_env(), cwd=ROOT)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    played = json.loads(done.stdout.decode().splitlines()[-1])
    assert played["textual_imported"] is False, "the table needs no kiosk"
    assert played["outcome"] and played["outcome"]["winner"], played  # the game is over
    assert played["presses"] >= 3 and played["phone_commands"] >= 3, played
    assert played["lit_before_a_press"] == played["presses"]
    assert played["lit_at_the_end"] == [], "a game over waits for nobody"
    assert played["leds_after_stop"] == [], "a stopped host leaves the box dark"


def imported(stderr: bytes) -> set[str]:
    """The modules a process imported, from `python -X importtime`'s lines."""
    names = set()
    for line in stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_the_demo_plays_its_game_to_the_end_with_no_terminal_and_exits_0(tmp_path):
    import children
    from companion.core.room import Room
    from companion.core.store import EventStore
    data = tmp_path / "data"
    done = children.run(
        [sys.executable, "-X", "importtime", "-m", "companion.cli", "--data-dir", str(data),
         "--port", str(free_port()), "--listen", "127.0.0.1", "--address", "127.0.0.1",
         "--buttons", str(tmp_path / "no-box.toml"),
         "demo", "--headless", "--players", "3", "--seed", "2", "--pace", "0"],
        capture_output=True, timeout=120, env=child_env(), cwd=tmp_path,
        stdin=open(os.devnull))
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    modules = imported(done.stderr)
    assert "companion.core.host" in modules and "aiohttp" in modules  # it served the phones
    assert not {m for m in modules if m.split(".")[0] == "textual"}, "no kiosk was needed"
    store = EventStore(data / "demo.db")
    room = Room(store)
    try:
        assert room.phase == "over" and room.table.state.outcome is not None
        # whoever hosts is told where the host's code is: in the address's fragment, which a
        # browser never sends
        assert f"/h#{room.host_token}" in done.stdout.decode()
    finally:
        asyncio.run(room.close())
        store.close()


def test_the_bare_headless_command_serves_until_sigterm_then_stops_cleanly(tmp_path):
    import urllib.request

    import children
    port = free_port()
    proc = children.spawn(
        [sys.executable, "-m", "companion.cli", "--data-dir", str(tmp_path / "data"),
         "--port", str(port), "--listen", "127.0.0.1", "--address", "127.0.0.1",
         "--buttons", str(tmp_path / "no-box.toml"), "--headless"],
        env=child_env(), cwd=tmp_path, stdout=open(os.devnull, "w"), stdin=open(os.devnull))
    try:
        began = time.monotonic()
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/board", timeout=2) \
                        as answer:
                    board = json.load(answer)
                    break
            except OSError:
                assert proc.poll() is None, "the headless table stopped by itself"
                assert time.monotonic() - began < 60, "the phones were never served"
                time.sleep(0.05)
        assert board["room"]["phase"] == "start"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        with socket.socket() as probe:  # the port is free for the next start
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(("127.0.0.1", port))
    finally:
        children.end(proc)


if __name__ == "__main__":  # the child of the first test: the game, then what was seen
    print(json.dumps(asyncio.run(play_whole_game(sys.argv[1]))))
