"""The warm start (companion/warmstart.py): a restart takes the compiled regular expressions,
the code generated for dataclasses and named tuples, and the QR masks from what the start
before worked out, and gets exactly what working them out afresh gives; a damaged or
unwritable file costs only the time it would have saved."""
from __future__ import annotations

import collections
import dataclasses
import logging
import marshal
import re

import pytest
import qrcode
from qrcode.constants import ERROR_CORRECT_L

from companion import warmstart
from screens import qr

# Named groups, flags given and inline, bytes, verbose mode, Unicode classes: each changes
# what re's compiler produces besides the pattern's text.
PATTERNS = [
    (r"(?P<key>\w+)\s*=\s*(?P<value>[^;]+);", 0),
    (r"colou?r", re.IGNORECASE),
    (rb"\x00+(..)(?:end)?", 0),
    (r"^\s*#.*$", re.MULTILINE),
    (r"(?x) a+  # verbose, with a comment\n  b?", 0),
    (r"[^\W\d_]+ñ", 0),
    (r"(?i)(a|b)\1", 0),
]
SEAT_URL = "http://192.168.1.23:8080/s/Zq3xW9vK2mT7pL0aB4cD5e"


@pytest.fixture(autouse=True)
def unhooked():
    """However a test ends, `re` is left as it was."""
    yield
    warmstart.finish()
    assert re._compiler.compile is warmstart._original
    assert "exec" not in vars(dataclasses) and "eval" not in vars(collections)


def compiled() -> list[re.Pattern]:
    re.purge()  # re's own per-process cache would answer before the compiler is asked
    return [re.compile(pattern, flags) for pattern, flags in PATTERNS]


def start(data_dir) -> tuple[list[re.Pattern], bool]:
    """One start: what it compiles, and whether it had anything new to keep (kept if so)."""
    warmstart.begin(str(data_dir))
    patterns = compiled()
    keep = warmstart.finish()
    if keep is not None:
        keep()
    return patterns, keep is not None


def test_a_restart_compiles_from_the_file_exactly_what_re_compiles(tmp_path):
    afresh = compiled()
    first, first_new = start(tmp_path)
    again, again_new = start(tmp_path)
    assert first_new and (tmp_path / warmstart.FILE).exists()
    assert not again_new  # every pattern came from the file: nothing new, nothing written
    # Patterns are equal when their text, flags and matcher code are.
    assert first == afresh and again == afresh
    assert again[0].match("seats = 7;").group("value") == "7"
    assert again[1].search("COLOR") and again[6].match("AA") and not again[6].match("ab")
    assert again[2].match(b"\x00\x00xyend").group(1) == b"xy"


def test_the_hook_is_gone_once_the_start_is_done(tmp_path):
    warmstart.begin(str(tmp_path))
    assert re._compiler.compile is not warmstart._original
    warmstart.finish()
    assert re._compiler.compile is warmstart._original
    assert warmstart.finish() is None  # a second finish (or one with no begin) keeps nothing


def entry_with_bad_code() -> bytes:
    pattern, flags = PATTERNS[0]
    return marshal.dumps((warmstart.FORMAT, {(pattern, flags): (0, [9999], 0, {}, (None,))},
                          {}, {}))


@pytest.mark.parametrize("damage", [
    lambda real: b"",
    lambda real: b"not marshal at all \x00\xff",
    lambda real: real[:len(real) // 2],                        # a torn write
    lambda real: marshal.dumps(((0, "another python"), {}, {}, {})),  # another format
    lambda real: marshal.dumps((warmstart.FORMAT, "not a table", {}, {})),
    lambda real: entry_with_bad_code(),                        # _sre refuses the code
], ids=["empty", "garbage", "torn", "foreign", "wrong-types", "bad-code"])
def test_a_damaged_file_is_ignored_and_rewritten(tmp_path, damage):
    afresh = compiled()
    start(tmp_path)
    path = tmp_path / warmstart.FILE
    path.write_bytes(damage(path.read_bytes()))
    patterns, new = start(tmp_path)
    assert patterns == afresh
    assert new, "what the damaged file lost is worked out and kept again"
    assert start(tmp_path) == (afresh, False)


def test_an_unreadable_file_is_reported_in_the_log(tmp_path, caplog):
    (tmp_path / warmstart.FILE).write_bytes(b"\xff garbage")
    with caplog.at_level(logging.WARNING, logger="companion.warmstart"):
        patterns, _ = start(tmp_path)
    assert patterns == compiled()
    assert "unreadable" in caplog.text


def test_an_unreadable_file_is_reported_once_the_kiosk_logs_where_it_is_read(tmp_path,
                                                                              caplog):
    """begin() runs before the kiosk has set up its log (the journal, or a file beside the
    games): a warning then would reach only the terminal that Textual is about to take."""
    (tmp_path / warmstart.FILE).write_bytes(b"\xff garbage")
    with caplog.at_level(logging.WARNING, logger="companion.warmstart"):
        warmstart.begin(str(tmp_path))
        assert "started without it" not in caplog.text
        warmstart.finish()
    assert caplog.text.count("started without it") == 1


def test_a_file_that_cannot_be_written_costs_only_the_next_start(tmp_path, caplog):
    (tmp_path / warmstart.FILE).mkdir()  # in the way of the rename, even for root
    with caplog.at_level(logging.WARNING, logger="companion.warmstart"):
        patterns, new = start(tmp_path)
    assert new and patterns == compiled()
    assert "cannot keep" in caplog.text
    assert sorted(p.name for p in tmp_path.iterdir()) == [warmstart.FILE]  # no part left


def classes():
    """A dataclass and a named tuple with what changes their generated code: defaults, a
    default factory, frozen, slots, annotations, keyword-only fields."""
    @dataclasses.dataclass(frozen=True, slots=True)
    class Seat:
        name: str
        dice: tuple[int, ...] = (2, 2)
        notes: list = dataclasses.field(default_factory=list, compare=False)
        _: dataclasses.KW_ONLY
        seat: int = 0

    Point = collections.namedtuple("Point", ["x", "y"], defaults=[0])
    return Seat, Point


def behaviour(Seat, Point) -> tuple:
    """What a program could notice of the classes: their instances and generated methods."""
    a, b = Seat("Ana", seat=3), Seat("Ana", (1,), ["x"])
    try:
        a.name = "Ben"
        frozen = False
    except dataclasses.FrozenInstanceError:
        frozen = True
    methods = [Seat.__init__, Seat.__repr__, Seat.__eq__, Seat.__hash__, Point.__new__]
    return (repr(a), a == Seat("Ana", seat=3), a == b, hash(a) == hash(Seat("Ana", seat=3)),
            frozen, Seat.__init__.__annotations__, repr(Point(1)), Point(1, 2)._asdict(),
            Point.__new__.__defaults__,
            [(m.__code__.co_code, m.__code__.co_filename, m.__code__.co_flags, m.__qualname__)
             for m in methods])


def test_a_restart_makes_dataclasses_and_named_tuples_from_the_file_as_python_does(tmp_path):
    afresh = behaviour(*classes())
    for new in (True, False):  # the first start compiles and keeps; the second reads
        warmstart.begin(str(tmp_path))
        made = behaviour(*classes())
        keep = warmstart.finish()
        # the same code, compiled with Python's own flags (the generated methods' co_flags),
        # not the warm-start module's `from __future__ import annotations`
        assert made == afresh
        assert (keep is not None) == new, "a restart finds every generated method in the file"
        if keep is not None:
            keep()


def test_a_damaged_code_entry_is_compiled_again(tmp_path):
    warmstart.begin(str(tmp_path))
    classes()
    warmstart.finish()()
    path = tmp_path / warmstart.FILE
    fmt, patterns, masks, codes, objects = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps((fmt, patterns, masks, {k: "not code" for k in codes},
                                    objects)))
    warmstart.begin(str(tmp_path))
    made = behaviour(*classes())
    assert warmstart.finish() is not None, "what the damaged entries lost is kept again"
    assert made == behaviour(*classes())


def qrcode_own_matrix(data: str) -> tuple:
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_L, border=qr.QUIET_ZONE)
    code.add_data(data)
    code.make(fit=True)
    return tuple(tuple(row) for row in code.get_matrix())


def test_a_restart_draws_the_same_code_with_the_mask_chosen_before(tmp_path):
    """The mask qrcode would choose (the one with the lowest penalty) is chosen once and
    reused; the file knows the code only by a hash, never the seat's token."""
    warmstart.begin(str(tmp_path))
    first = qr.matrix.__wrapped__(SEAT_URL)  # past the per-process cache
    chosen = warmstart.qr_mask(SEAT_URL)
    warmstart.finish()()
    assert first == qrcode_own_matrix(SEAT_URL) and chosen is not None
    kept = (tmp_path / warmstart.FILE).read_bytes()
    assert b"Zq3xW9vK2mT7pL0aB4cD5e" not in kept and SEAT_URL.encode() not in kept

    warmstart.begin(str(tmp_path))
    assert warmstart.qr_mask(SEAT_URL) == chosen
    assert qr.matrix.__wrapped__(SEAT_URL) == first
    assert warmstart.finish() is None


def test_the_file_holds_one_starts_worth_however_many_games_have_passed(tmp_path):
    """Every game brings new codes: the file keeps what the last start used, not all."""
    sizes = []
    for game in range(5):
        warmstart.begin(str(tmp_path))
        re.purge()
        re.compile(rf"seat-{game}-(\d+)")
        warmstart.remember_qr_mask(f"{SEAT_URL}{game}", game % 8)
        warmstart.finish()()
        sizes.append((tmp_path / warmstart.FILE).stat().st_size)
    assert max(sizes) - min(sizes) <= 8  # digits in the patterns aside, one start's worth
    warmstart.begin(str(tmp_path))
    assert warmstart.qr_mask(f"{SEAT_URL}4") == 4 and warmstart.qr_mask(f"{SEAT_URL}0") is None


def test_what_the_kiosk_keeps_comes_back_at_the_next_start_only_while_it_is_used(tmp_path):
    assert warmstart.recall("sheet", "a") is None and not warmstart.collecting()
    warmstart.keep("sheet", "a", b"outside a start")  # nothing to keep it for
    warmstart.begin(str(tmp_path))
    assert warmstart.collecting() and warmstart.recall("sheet", "a") is None
    warmstart.keep("sheet", "a", b"rules of a")
    warmstart.keep("sheet", ("b", 1), b"rules of b")
    warmstart.finish()()
    warmstart.begin(str(tmp_path))
    assert warmstart.recall("sheet", "a") == b"rules of a"
    assert warmstart.recall("other", "a") is None, "each kind has its own keys"
    assert warmstart.finish() is None, "nothing new: the file stays as it is"
    warmstart.begin(str(tmp_path))
    assert warmstart.recall("sheet", "a") == b"rules of a"
    warmstart.keep("sheet", "c", b"rules of c")
    warmstart.finish()()  # something new: written with what this start used, b not
    warmstart.begin(str(tmp_path))
    assert warmstart.recall("sheet", ("b", 1)) is None
    assert (warmstart.recall("sheet", "a"), warmstart.recall("sheet", "c")) == \
        (b"rules of a", b"rules of c")
