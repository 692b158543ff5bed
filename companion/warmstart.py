"""What every start of the kiosk works out the same way, kept in the data directory from the
start before: the compiled form of each regular expression compiled while starting, the code
the standard library generates for each dataclass and named tuple defined while starting, the
mask chosen for each QR code, and what the kiosk asks to keep (the stylesheets it parsed).

Most of a start is importing Textual and Rich, and they compile about ninety regular
expressions as they load (Textual's CSS tokenizer alone dozens). Python's `re` parses each
pattern and generates its matcher code in pure Python, a fifteenth of the CPU before the first
frame (about 0.15 s on a Pi); and choosing the best of a QR code's eight masks is about as
much again per code. Every dataclass has its methods (__init__, __repr__, __eq__, ...) and
every named tuple its __new__ written out as source text and compiled as the class is made:
Textual, Rich and the rules define about three hundred of them while loading, as much again
(92 of 1429 million instructions to the join screen's first frame, counted with valgrind).
All of these give the same answer every time for the same input, so a start reuses what the
last one worked out and computes only what is new.

The file holds no secret: QR codes are known by a hash of what they encode. It holds code the
kiosk runs, as Python's own __pycache__ does (and pickles, which are code as much), so it
lives in the kiosk's own data directory, which only the kiosk's user may write. A missing, damaged or foreign file (another Python,
another format) is ignored and rewritten; a file that cannot be written (a full card) only
means the next start computes it all again.

    begin(data_dir)     before anything that compiles as it loads is imported (companion.cli
                        begins it first thing): read the file, hook `re`'s compiler and the
                        compiling of dataclasses and collections
    qr_mask(data)       the mask chosen last time for this code, or None
    remember_qr_mask(data, mask)
    collecting()        whether a start is under way (between begin and finish)
    recall(kind, key)   bytes kept under (kind, key) by the start before, or None: what the
    keep(kind, key, data)  kiosk works out itself (its parsed stylesheets: screens/stylecache.py)
    finish()            at the first frame: unhook them, log why the file was unreadable if
                        it was; a function that writes what is new (run it off the event
                        loop), or None when nothing is

The window ends at the first frame on purpose: what is compiled later (the web server's
imports) includes patterns built from sets, different at every start, which would have the
file written at every start for nothing.
"""
from __future__ import annotations

import builtins
import collections
import dataclasses
import hashlib
import logging
import marshal
import os
import sys
import types
from collections.abc import Callable
from re import _compiler, _parser

import _sre

log = logging.getLogger(__name__)

FILE = "warm-start"
# The compiled form is the interpreter's own: another Python (an upgrade) ignores the file.
FORMAT = (3, sys.version, _sre.MAGIC, _sre.CODESIZE)
# The stdlib modules that compile generated source text, and the builtin each calls to do it:
# a module global of that name is found before the builtin, by those calls alone.
GENERATORS = ((dataclasses, "exec"), (collections, "eval"))

_original = _compiler.compile
_path: str | None = None
_kept: dict = {}  # pattern key -> what _sre.compile takes: the file's
_used: dict = {}  # the same for what this start compiled: the next file
_masks: dict[str, int] = {}  # QR code hash -> mask: the file's, and those chosen since
_masks_used: dict[str, int] = {}  # those this start drew: the next file
_codes: dict = {}  # (builtin, generated source) -> its code object: the file's
_codes_used: dict = {}  # the same for what this start generated: the next file
_objects: dict = {}  # (kind, key) -> bytes: the file's
_objects_used: dict = {}  # the same for what this start recalled or kept: the next file
_new = False
# Why the file was not used, said at finish(): begin() runs before the kiosk has set up its
# log (the journal, or a file beside the games), where a warning must land to be found.
_unreadable: str | None = None


def begin(data_dir: str) -> None:
    global _path, _kept, _used, _masks, _masks_used, _codes, _codes_used, _new, _unreadable
    global _objects, _objects_used
    _path, _new, _unreadable = os.path.join(data_dir, FILE), False, None
    _kept, _used, _masks, _masks_used, _codes, _codes_used = {}, {}, {}, {}, {}, {}
    _objects, _objects_used = {}, {}
    try:
        with open(_path, "rb") as file:
            kept = marshal.loads(file.read())
        if kept[0] == FORMAT and all(isinstance(part, dict) for part in kept[1:5]):
            _kept, _masks, _codes, _objects = kept[1], kept[2], kept[3], kept[4]
    except FileNotFoundError:
        pass
    except Exception as error:  # damaged: a torn write cannot be (see _writer), a bad card can
        _unreadable = f"the warm-start file {_path} is unreadable ({error}): started without it"
    _compiler.compile = _compile
    for module, builtin in GENERATORS:
        setattr(module, builtin, _generated(builtin))


def _generated(builtin: str) -> Callable:
    """exec or eval for a generator module: its source text compiled as the builtin would
    compile it (no __future__ flags: the stdlib modules calling it have none), or the code
    the last start compiled from the same text."""
    run = getattr(builtins, builtin)

    def compiled(source, *args, **kwargs):
        global _new
        if not isinstance(source, str):
            return run(source, *args, **kwargs)
        key = (builtin, source)
        code = _codes.get(key)
        if not isinstance(code, types.CodeType):  # not kept, or a damaged entry
            code, _new = compile(source, "<string>", builtin, dont_inherit=True), True
        _codes_used[key] = code
        return run(code, *args, **kwargs)
    return compiled


def _compile(pattern, flags=0):
    """re._compiler.compile, from the file when the last start compiled the same pattern.
    re's own per-process cache sits in front of this; only its misses reach here."""
    global _new
    if not isinstance(pattern, (str, bytes)) or flags & _compiler.SRE_FLAG_DEBUG:
        return _original(pattern, flags)
    flags = int(flags)
    key = (pattern, flags)
    parts = _kept.get(key)
    if parts is not None:
        try:
            compiled = _sre.compile(pattern, *parts)
            _used[key] = parts
            return compiled
        except Exception:  # a damaged entry: _sre checks the code it is given
            pass
    parts = _used[key] = _compiled(pattern, flags)
    _new = True
    return _sre.compile(pattern, *parts)


def _compiled(pattern, flags: int) -> tuple:
    """What _sre.compile takes besides the pattern, worked out as re._compiler.compile does."""
    tree = _parser.parse(pattern, flags)
    code = _compiler._code(tree, flags)
    names = tree.state.groupdict
    index = [None] * tree.state.groups
    for name, number in names.items():
        index[number] = name
    return (int(flags | tree.state.flags), [int(op) for op in code], tree.state.groups - 1,
            dict(names), tuple(index))


def _key(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()[:32]


def qr_mask(data: str) -> int | None:
    key = _key(data)
    mask = _masks.get(key)
    if mask is not None and _path is not None:
        _masks_used[key] = mask
    return mask


def remember_qr_mask(data: str, mask: int) -> None:
    global _new
    key = _key(data)
    _masks[key] = mask
    if _path is not None:
        _masks_used[key] = mask
        _new = True


def collecting() -> bool:
    """Whether a start is under way: between begin() and finish()."""
    return _path is not None


def recall(kind: str, key) -> bytes | None:
    """What keep() kept under (kind, key) in the start before; None outside a start. `key`
    is made of what marshal writes (str, bytes, numbers, tuples of them)."""
    if not collecting():
        return None
    data = _objects.get((kind, key))
    if not isinstance(data, bytes):  # not kept, or a damaged entry
        return None
    _objects_used[(kind, key)] = data
    return data


def keep(kind: str, key, data: bytes) -> None:
    """Keep `data` for the next start's recall(kind, key); nothing outside a start."""
    global _new
    if collecting():
        _objects_used[(kind, key)] = data
        _new = True


def finish() -> Callable[[], None] | None:
    """Unhook `re` and the generators (what is compiled after the start is compiled as
    usual); what to write."""
    global _path, _kept, _used, _masks_used, _codes, _codes_used, _unreadable
    global _objects, _objects_used
    if _unreadable is not None:
        log.warning("%s", _unreadable)
        _unreadable = None
    _compiler.compile = _original
    for module, builtin in GENERATORS:
        if isinstance(module.__dict__.get(builtin), types.FunctionType):  # ours, not a builtin
            del module.__dict__[builtin]  # the builtin is found again
    path, _path = _path, None
    used, masks, codes, objects = _used, _masks_used, _codes_used, _objects_used
    _kept, _used, _masks_used, _codes, _codes_used = {}, {}, {}, {}, {}
    _objects, _objects_used = {}, {}
    if path is None or not _new:
        return None
    # Only what this start used: the file never grows past one start's worth (every game
    # has new codes). The masks stay in memory: codes drawn later look them up.
    return _writer(path, marshal.dumps((FORMAT, used, masks, codes, objects)))


def _writer(path: str, data: bytes) -> Callable[[], None]:
    def write() -> None:
        part = path + ".part"
        try:  # whole or not at all: a pulled plug leaves the old file or none
            with open(part, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(part, path)
        except OSError as error:
            log.warning("cannot keep the warm-start file %s (%s): the next start "
                        "computes it again", path, error)
            try:
                os.remove(part)
            except OSError:
                pass
    return write
