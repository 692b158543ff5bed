"""The darkmoon-companion command as a user runs it."""
import collections
import dataclasses
import json
import random
import re
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.tools.simulate import bot_choice
from companion.core.store import EventStore
from companion.core.table import Table

import children

ROOT = Path(__file__).resolve().parents[1]


def test_simulate_prints_wins_turns_and_speed(capsys):
    assert main(["simulate", "--games", "5", "--players", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "5 games, 4 players, seed 3" in out
    assert out.startswith("Bots: sensible (status-aware"), "the figures say who played"
    assert "wins by team:" in out and "wins by condition:" in out
    assert "mean turns per game:" in out and "games per second:" in out


def test_simulate_json_counts_every_game_once(capsys):
    main(["simulate", "--games", "6", "--players", "5", "--seed", "9", "--variant",
          "first_is_last", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert sum(result["wins"].values()) == sum(result["conditions"].values()) == 6


def test_simulate_names_the_bots_it_was_asked_for(capsys):
    """Issue 11: "100% Infected wins" with no word that this is the bots, not the game."""
    assert main(["simulate", "--games", "3", "--bots", "random", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Bots: random (uniform among the legal options)")
    main(["simulate", "--games", "2", "--bots", "helpful", "--json"])
    assert json.loads(capsys.readouterr().out)["bots"] == "helpful"


def test_simulate_refuses_a_variant_the_player_count_forbids(capsys):
    assert main(["simulate", "--games", "1", "--players", "4", "--variant",
                 "telepathic_infected"]) == 2
    assert "needs at least 5 players" in capsys.readouterr().err


def test_replay_prints_the_stored_games_public_state(tmp_path, capsys):
    path = tmp_path / "game.db"
    table = Table.new(EventStore(path), {"names": ["A", "B", "C"]}, seed=5)
    rng = random.Random(5)
    for _ in range(20):
        seat, command = bot_choice(table.state, rng)
        table.submit(seat, command)
    assert main(["replay", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["state_id"] == table.state_id
    assert shown["shield"] == table.public_view()["shield"]
    assert all(seat["status"] is None or seat["revealed"] for seat in shown["seats"])


def test_replay_reads_as_words_and_finds_the_demos_file_by_itself(tmp_path, capsys):
    """Issue 11: replay printed 4,500 lines of JSON. It prints who played, where the board
    stands and the log in words (either language), and finds the table's file by itself."""
    data = tmp_path / "data"
    data.mkdir()
    table = Table.new(EventStore(data / "demo.db"), {"names": ["Ana", "Ben", "Cai"]}, seed=5)
    rng = random.Random(5)
    for _ in range(20):
        seat, command = bot_choice(table.state, rng)
        table.submit(seat, command)
    assert main(["replay", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"Game {table.game_id}, 3 players: 1 Ana, 2 Ben, 3 Cai"
    assert out[1].startswith("Turn ") and f"(state {table.state_id})" in out[1]
    assert any(line.startswith("  The game begins: Ana") for line in out)
    assert not any(line.lstrip().startswith("{") for line in out)
    assert main(["replay", "--data-dir", str(data), "--lang", "es"]) == 0
    assert capsys.readouterr().out.startswith(f"Partida {table.game_id}, 3 jugadores")


@pytest.mark.parametrize("content", [b"hello, not a database", b"SQLite format 3\x00" + b"\x07" * 300])
def test_replay_of_a_file_that_is_not_a_game_says_so_in_one_sentence(tmp_path, capsys,
                                                                     content):
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "is not a Dark Moon games file" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_replay_with_no_file_and_none_found_says_where_it_looked(tmp_path, capsys):
    assert main(["replay", "--data-dir", str(tmp_path)]) == 2
    assert "looked for games.db, demo.db" in capsys.readouterr().err


def test_replay_of_a_missing_file_says_so(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.db")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_buttons_prints_the_pin_map_a_builder_wires(capsys):
    assert main(["buttons", "--buttons", "hardware/buttons.example.toml"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "seat 1: black GPIO4, red GPIO17, led GPIO18"  # hardware/WIRING.md
    assert len(out) == 7


def test_buttons_without_a_box_prints_the_example_map_in_the_asked_language(tmp_path, capsys):
    """Issue 11: `buttons` said it prints the pin map, yet printed nothing without a config,
    and `--lang es` printed English."""
    missing = tmp_path / "buttons.toml"
    assert main(["buttons", "--buttons", str(missing)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"No button box is set up in {missing}: the kiosk uses the "
                             "keyboard") and "buttons.example.toml" in out[0]
    assert out[1] == "seat 1: black GPIO4, red GPIO17, led GPIO18"  # hardware/WIRING.md
    assert len(out) == 8
    assert main(["buttons", "--buttons", str(missing), "--lang", "es"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("No hay caja de botones configurada")
    assert out[1] == "asiento 1: negro GPIO4, rojo GPIO17, luz GPIO18"


def test_buttons_refuses_a_wrong_map_and_says_where(tmp_path, capsys):
    path = tmp_path / "b.toml"
    path.write_text("[gpio]\nseats = [ { black = 4, red = 4 } ]\n")
    assert main(["buttons", "--buttons", str(path)]) == 2
    assert "seat 1 red = 4 is already seat 1 black" in capsys.readouterr().err


def test_buttons_without_a_config_says_the_keyboard_is_used(tmp_path, capsys):
    assert main(["buttons", "--buttons", str(tmp_path / "none.toml")]) == 0
    assert "the kiosk uses the keyboard" in capsys.readouterr().out


def test_options_before_demo_are_kept():
    """`darkmoon-companion --port 9000 demo` serves on 9000, as the user asked."""
    from companion.cli import parse
    args = parse(["--port", "9000", "--data-dir", "/tmp/d", "demo", "--players", "4"])
    assert (args.port, args.data_dir, args.players) == (9000, "/tmp/d", 4)
    args = parse(["demo", "--port", "9001"])
    assert args.port == 9001 and args.data_dir == "data" and args.buttons is None
    # --headless (no kiosk on this screen) is kept on either side of `demo`
    assert parse(["--headless", "demo"]).headless and parse(["demo", "--headless"]).headless
    assert not parse(["demo"]).headless and parse(["--headless"]).headless


async def test_the_product_draws_its_start_screen_then_serves_the_phones(tmp_path):
    """The phones' server starts after the kiosk's first frame (it is a quarter of a start's
    work on a Pi): the start screen is drawn and the server still answers."""
    from power.product import Product, free_port
    product = Product(tmp_path / "data", free_port())
    await product.start()  # returns once the phones' server answers /api/board
    try:
        assert f"http://127.0.0.1:{product.port}" in product.screen(), product.screen()
    finally:
        assert product.stop() == 0


def test_the_command_imports_nothing_before_main_turns_the_collector_off():
    """What `import companion.cli` loads besides argparse (and gc, built in) is the package
    alone: the kiosk's imports come after main() has turned the cyclic collector off."""
    probe = ("import gc, json, sys; import argparse; before = set(sys.modules); "
             "import companion.cli; print(json.dumps(sorted(set(sys.modules) - before)))")
    done = children.run([sys.executable, "-c", probe], capture_output=True, timeout=60,
                        check=True, cwd=ROOT)
    assert json.loads(done.stdout) == ["companion", "companion.cli"]


def test_a_command_other_than_the_kiosk_leaves_re_as_it_was(capsys):
    assert main(["simulate", "--games", "1", "--seed", "4"]) == 0
    assert re._compiler.compile.__module__ == "re._compiler"
    assert "exec" not in vars(dataclasses) and "eval" not in vars(collections)


async def test_the_demo_plays_shadow_corporation_when_asked(tmp_path):
    """Issue 13: a newcomer can watch the expansion and its modules: `demo --expansion`."""
    from companion.cli import DEMO_EXPANSION, demo_game, parse
    from companion.core.room import Room
    from companion.core.store import EventStore
    assert parse(["demo", "--expansion"]).expansion and not parse(["demo"]).expansion
    room = Room(EventStore(str(tmp_path / "demo.db")), seed=3, bot_delay=0, demo=True)
    await demo_game(room, 5, expansion=True)
    assert sorted(room.public_view()["variants"]) == sorted(DEMO_EXPANSION)
    assert "evacuation" in room.public_view() and "threats" in room.public_view()
    await room.close()
