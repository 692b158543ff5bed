"""The `darkmoon-companion` command: the composition root of the product.

Only argparse is imported before main() runs, and every other module where it is used: main()
turns the cyclic garbage collector off before the kiosk's imports (see main), and a command
imports only what it needs (`--help` neither Textual nor the web server).
"""
from __future__ import annotations

import argparse
import gc
import os
import sys


DATA_DIR = "data"


def serving_options(parser: argparse.ArgumentParser, suppress: bool = False) -> None:
    """The kiosk's options, for the bare command and for `demo`. Under `demo` their defaults
    are SUPPRESS: otherwise argparse resets `--port 9000 demo` to the default port."""
    def default(value):
        return argparse.SUPPRESS if suppress else value
    parser.add_argument("--port", type=int, default=default(8080),
                        help="the phones' web port (8080)")
    parser.add_argument("--listen", default=default("0.0.0.0"), metavar="ADDRESS",
                        help="address the web server listens on (all interfaces)")
    parser.add_argument("--address", default=default(None),
                        help="address put in the join codes (default: this machine's LAN IP, "
                             "followed as it changes)")
    parser.add_argument("--data-dir", default=default(DATA_DIR),
                        help="where games are kept (default: ./data)")
    parser.add_argument("--kiosk", action="store_true", default=default(False),
                        help="full-screen appliance mode: no key quits")
    parser.add_argument("--headless", action="store_true", default=default(False),
                        help="no kiosk on this screen: the buttons, their LEDs and the phones' "
                             "web server only (a TV can show the /board page); a demo ends "
                             "when its game is over")
    parser.add_argument("--buttons", default=default(None), metavar="FILE",
                        help="the seat-button box's settings (default: "
                             "/etc/darkmoon-companion/buttons.toml; without it the keyboard "
                             "is the buttons)")
    parser.add_argument("--voice-out", default=default(None), metavar="DIR",
                        help="write each line the narrator says as a WAV file in DIR (with "
                             "DIR/voice.jsonl listing them) instead of playing it")
    parser.add_argument("--quiet", action="store_true", default=default(False),
                        help="no narrator's voice")
    from .appliance import hotspot
    hotspot.add_arguments(parser, suppress)


def main(argv: list[str] | None = None) -> int:
    # The kiosk's start is all imports and building the first frame (bench/bench_start.py
    # times it), and leaves almost no garbage: the cyclic collector, walking an ever larger heap
    # of modules, stays off until the first frame is on the screen (KioskApp.on_ready
    # collects once and turns it back on; headless, once the phones are served). Every
    # other command collects as usual.
    collecting = gc.isenabled()
    gc.disable()
    umask = os.umask(0o077)  # only read here (Python can only swap it): see open_data_dir
    os.umask(umask)
    try:
        args = parse(argv)
        if args.command in (None, "demo"):
            return kiosk_command(args, demo=args.command == "demo")
        if collecting:
            gc.enable()
        if args.command == "simulate":
            return simulate_command(args)
        if args.command == "replay":
            from .tools.replay import replay_command
            return replay_command(args)
        if args.command == "verify":
            from .chance.verify import verify_command
            return verify_command(args)
        if args.command == "buttons":
            return buttons_command(args)
        problem = open_data_dir(args.data_dir)
        if problem:
            return refuse(problem)
        from .appliance.hotspot import hotspot_command
        return hotspot_command(args)
    finally:
        if collecting:
            gc.enable()
        os.umask(umask)  # a caller in this process (a test) gets its own back


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    from .appliance import hotspot
    from .chance import verify
    from .tools import replay
    from .darkmoon.data import VARIANTS
    parser = argparse.ArgumentParser(
        prog="darkmoon-companion",
        description="A referee for the board game Dark Moon. With no command it starts the "
                    "kiosk and the phones' web server.")
    serving_options(parser)
    commands = parser.add_subparsers(dest="command")

    demo = commands.add_parser("demo",
                               help="bots play a whole game on the kiosk; the host "
                                    "(F5 shows their code) hands a seat to a person")
    serving_options(demo, suppress=True)
    demo.add_argument("--players", type=int, default=5, choices=range(3, 8), metavar="3-7")
    demo.add_argument("--seed", type=int, default=None, help="the same seed, the same game")
    demo.add_argument("--pace", type=float, default=1.5,
                      help="seconds a bot waits before it moves (default 1.5)")
    demo.add_argument("--expansion", action="store_true",
                      help="Shadow Corporation, with its Threats and Company Man modules")
    demo.add_argument("--lang", default="en", choices=("en", "es"),
                      help="the room's language: the kiosk's, the phones' and the voice's")

    buttons = commands.add_parser("buttons",
                                  help="which seat-button box is set up; --test to try it")
    buttons.add_argument("--buttons", default=argparse.SUPPRESS, metavar="FILE",
                         help="the settings file (default /etc/darkmoon-companion/buttons.toml)")
    buttons.add_argument("--test", action="store_true",
                         help="press any button and see its seat and colour (Ctrl+Q quits)")
    buttons.add_argument("--lang", default="en", choices=("en", "es"))

    hotspot.add_command(commands)

    sim = commands.add_parser("simulate", help="bots play whole games; prints the results")
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--players", type=int, default=5, choices=range(3, 8), metavar="3-7")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--variant", action="append", default=[], choices=VARIANTS,
                     metavar="NAME", help=f"one of: {', '.join(VARIANTS)} (repeatable)")
    sim.add_argument("--expansion", action="store_true",
                     help="play with the Shadow Corporation expansion")
    sim.add_argument("--module", action="append", default=[],
                     choices=("company_man", "threats"),
                     help="a Shadow Corporation module (with --expansion; repeatable)")
    sim.add_argument("--bots", default="sensible", choices=("sensible", "helpful", "random"),
                     help="who plays: sensible (default: status-aware, the Uninfected help and "
                          "the Infected sabotage quietly), helpful (every seat mostly helps) or "
                          "random (any legal option)")
    sim.add_argument("--json", action="store_true", help="print the figures as JSON")

    replay.add_command(commands)
    verify.add_command(commands)

    return parser.parse_args(argv)


DEMO_NAMES = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus")


def kiosk_command(args, demo: bool) -> int:
    """The product: one Room and its table host (the buttons, their LEDs, the web server
    for the phones), with the kiosk on this screen unless --headless."""
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")  # no idle redraws on the Pi
    problem = open_data_dir(args.data_dir) or port_problem(args.listen, args.port)
    if problem:
        return refuse(problem)
    import asyncio

    from .appliance import hotspot
    from .appliance.net import base_url
    from .core.room import Room
    from .appliance.salvage import StoreUnavailable, open_room
    try:
        path = os.path.join(args.data_dir, "demo.db" if demo else "games.db")
        if demo and os.path.exists(path):
            for suffix in ("", "-wal", "-shm"):  # each demo starts afresh
                if os.path.exists(path + suffix):
                    os.remove(path + suffix)
    except OSError as error:
        return refuse(f"cannot open the data directory {args.data_dir}: {error}")
    def make_room(store):
        if demo:
            return Room(store, seed=args.seed, bot_delay=max(0.0, args.pace), demo=True)
        return Room(store)
    try:  # a damaged games file is set aside and salvaged, never a crash loop under systemd
        store, room, salvage = open_room(path, make_room, announce=salvaging)
    except StoreUnavailable as error:
        return refuse(error.message)
    if demo:
        asyncio.run(demo_game(room, args.players, args.expansion, args.lang))
    from hardware.pi import lgpio_workdir
    from hardware.source import open_source

    from .core.host import TableHost
    lgpio_workdir()  # lgpio's pipe files go to a folder of ours, not the current directory
    buttons, fallback = open_source(args.buttons)
    host = TableHost(room, buttons=buttons, port=args.port, listen_host=args.listen,
                     narrator=narrator_for(room, args))
    address_source, spot = hotspot.for_kiosk(args)
    if args.headless:
        try:
            return asyncio.run(run_headless(host, base_url(args.port, args.address), spot,
                                            fallback, until_over=demo))
        finally:
            store.close()
    from screens.app import KioskApp
    app = KioskApp(host, base_url=base_url(args.port, args.address), kiosk=args.kiosk,
                   buttons_fallback=fallback, salvage=salvage)
    app.address_source, app.hotspot = address_source, spot
    try:
        app.run()
    finally:
        store.close()
    return app.return_code or 0


async def run_headless(host, url: str, spot, fallback, *, until_over: bool) -> int:
    """The table with no kiosk: the host serves at once, and runs until SIGTERM or Ctrl-C
    (systemd, a shell), or, for a demo (`until_over`), until its game is over. Whoever sets
    up the game reads the host's code here (the journal, under systemd) and the room on
    the /board page."""
    import asyncio
    import logging
    import signal

    from .core.host import collect_rarely
    from .core.table import PUBLIC
    from .lang import text
    log = logging.getLogger("darkmoon-companion")
    room, loop, stop = host.room, asyncio.get_running_loop(), asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    if fallback is not None:  # no box and no kiosk's keys: the phones are the buttons
        log.warning("seat buttons: none (%s): %s", fallback.reason, fallback.detail)
    try:
        await host.start()
        collect_rarely()  # the table is up: the collector's policy from here on
        if spot is not None:  # NetworkManager takes seconds: off the loop, never waited for
            import threading
            threading.Thread(target=spot.bring_up, name="hotspot", daemon=True).start()
        log.info("headless: serving the phones at %s", url)
        if room.host_phone is None:
            print(f"{text(room.lang, 'kiosk.start.scan_to_host')}: {url}/h#{room.host_token}",
                  flush=True)
        if until_over:
            def heard(_audience, _payload) -> None:
                if room.phase == "over":
                    stop.set()
            for audience in (PUBLIC, "room"):
                room.listen(audience, heard)
            heard(None, None)
        await stop.wait()
        if until_over and host.narrator is not None:  # the demo's last lines are heard too
            try:
                await asyncio.wait_for(host.narrator.voice.idle(), 15)
            except asyncio.TimeoutError:
                log.warning("voice: the last lines were not said in time")
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        await host.stop()
        await room.close()
    return 0


DEMO_EXPANSION = ["shadow_corporation", "threats_module", "company_man_module"]


def narrator_for(room, args):
    """The narrator's voice for this start, or None with --quiet. With --voice-out its lines
    are kept as WAV files there; without espeak-ng (or aplay) the game runs silent, and the
    voice says why in the journal."""
    if args.quiet:
        return None
    from .voice.narrator import Narrator
    from .voice.speech import Voice
    out = args.voice_out
    if out is not None:
        os.makedirs(out, exist_ok=True)
    return Narrator(room, Voice(out))


async def demo_game(room, players: int, expansion: bool = False, lang: str = "en") -> None:
    """Deal the demo's game before the kiosk starts: every seat a bot until the host hands it
    to a person (Room.hand_over)."""
    await room.new_game({"names": list(DEMO_NAMES[:players]),
                         "variants": DEMO_EXPANSION if expansion else []},
                        lang=lang, bots=list(range(players)))
    await room.start()


def salvaging() -> None:
    """Said on the screen before the kiosk takes it, while a damaged store is salvaged."""
    from .lang import text
    for lang in ("en", "es"):
        print(text(lang, "kiosk.damaged.salvaging"), file=sys.stderr, flush=True)


def open_data_dir(data_dir: str) -> str | None:
    """The data directory made this user's alone (companion/appliance/data_dir.py: the
    process's umask, then the folder and its files) before anything is written there, then
    the logs set up, and what was found open to others logged; a reason not to start, or
    None. Every way of starting (the kiosk, demo, --headless, the hotspot command) comes
    through here: games.db holds every code and the secret of the next deal."""
    import logging

    from .appliance.data_dir import make_private
    problem = said = None
    try:
        said = make_private(data_dir)
    except OSError as error:
        problem = f"cannot open the data directory {data_dir}: {error}"
    log_to_journal(data_dir)
    if said:
        logging.getLogger("darkmoon-companion").warning("%s", said)
    return problem


def log_to_journal(data_dir: str) -> None:
    """Logs go to the journal (through syslog's socket, which journald reads) or, with no
    syslog, to a file in the data directory: never to stderr, where Textual draws."""
    import logging
    import logging.handlers
    if os.path.exists("/dev/log"):  # SysLogHandler swallows a missing socket: look first
        handler = logging.handlers.SysLogHandler(address="/dev/log")
        handler.ident = "darkmoon-companion: "
    else:
        try:
            os.makedirs(data_dir, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(
                os.path.join(data_dir, "companion.log"), maxBytes=1_000_000, backupCount=2)
        except OSError:
            return  # nowhere to write: the refusal below still reaches the screen
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)


def refuse(message: str) -> int:
    """A reason not to start: on the screen (seconds before systemd restarts us) and in the
    journal, where whoever looks later finds it."""
    import logging
    logging.getLogger("darkmoon-companion").error("%s", message)
    print(message, file=sys.stderr)
    return 2


def buttons_command(args) -> int:
    """Without --test: say which box is set up and how its pins are mapped; with none set up,
    the example map a builder would copy (hardware/buttons.example.toml)."""
    from hardware import config
    from hardware.source import open_source

    from .lang import text
    path = args.buttons or config.DEFAULT_PATH
    if not args.test:
        shown = path
        if not os.path.exists(path):
            print(text(args.lang, "kiosk.cli.no_box", path=path, example=config.EXAMPLE_PATH))
            shown = config.EXAMPLE_PATH
        try:
            settings = config.load(shown)
        except config.ConfigError as error:
            print(error.message, file=sys.stderr)
            return 2
        if settings.serial:
            print(text(args.lang, "kiosk.cli.serial_box", port=settings.serial, path=shown))
        for n, seat in enumerate(settings.gpio, 1):
            pins = ", ".join(f"{text(args.lang, 'kiosk.cli.pin.' + name)} GPIO{pin}"
                             for name, pin in seat.pins().items())
            print(text(args.lang, "kiosk.cli.seat_pins", n=n, pins=pins))
        return 0
    from hardware.pi import lgpio_workdir
    from screens.buttons import ButtonTestApp
    lgpio_workdir()  # lgpio's pipe files go to a folder of ours, not the current directory
    source, fallback = open_source(args.buttons)
    ButtonTestApp(source, fallback, lang=args.lang).run()
    return 0


def port_problem(address: str, port: int) -> str | None:
    """Say so plainly, before the screen is taken over, if the phones' port is not free."""
    import socket
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((address, port))
        except OSError as error:
            return (f"cannot serve the phones on {address}:{port}: {error.strerror}. "
                    "Is the companion already running? Choose another port with --port.")
    return None


def simulate_command(args) -> int:
    import json
    from .darkmoon import BadSetup
    from .tools.simulate import BOTS, simulate
    if args.games < 1:
        print("--games must be at least 1", file=sys.stderr)
        return 2
    try:
        variants = tuple(args.variant) + (("shadow_corporation",) if args.expansion else ()) \
            + tuple(f"{m}_module" for m in args.module)
        result = simulate(args.games, args.players, args.seed, variants, args.bots)
    except BadSetup as error:
        print(error.message, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    games = result["games"]
    # The figures are the bots' as much as the game's: say who played.
    print(f"Bots: {BOTS[args.bots][1]}")
    print(f"{games} games, {args.players} players, seed {args.seed}"
          + (", Shadow Corporation" if args.expansion else "")
          + "".join(f", module {m}" for m in args.module)
          + (f", variants: {', '.join(args.variant)}" if args.variant else ""))
    print("wins by team:")
    for team in ("uninfected", "infected") + (("company_man",) if "company_man" in args.module
                                              else ()):
        wins = result["wins"].get(team, 0)
        print(f"  {team:<11} {wins:>6}  ({100 * wins / games:.1f}%)")
    print("wins by condition:")
    for condition, wins in sorted(result["conditions"].items(), key=lambda kv: -kv[1]):
        print(f"  {condition:<20} {wins:>6}")
    print(f"mean turns per game: {result['mean_turns']:.1f}")
    print(f"games per second:    {result['games_per_second']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
