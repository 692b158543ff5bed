"""A start parses no stylesheet the start before parsed the same way.

Textual parses the CSS of the app and of every widget class it mounts at every start, with a
tokenizer of regular expressions and a parser in pure Python: about a sixth of the CPU from
making the kiosk to its first frame (40 of the 1,007 million instructions of a join screen's
start, counted with valgrind), for text that changes only when the product does. The warm
start (companion/warmstart.py) keeps the rules each text parsed into, pickled, and a restart
reads them back for that text, the same variables (the theme's colours), and the same
Textual. Outside the start, and for any text it has not kept, Textual parses as ever, and
keeps the rules in its own cache as ever.

Leans on Textual's Stylesheet._parse_rules (the version pinned in pyproject.toml):
tests/screens/test_stylecache.py checks that the kept rules are the parsed ones, and that a
kiosk started on them draws what it draws without them.
"""
from __future__ import annotations

import hashlib
import os
import pickle

from textual.css import model, parse, stylesheet

from companion import warmstart

KIND = "textual-css"
_textual_parse = stylesheet.Stylesheet._parse_rules
# The installed Textual's CSS parser as its files stand: another install parses afresh.
TEXTUAL = tuple((os.stat(m.__file__).st_size, os.stat(m.__file__).st_mtime_ns)
                for m in (model, parse, stylesheet))


def _variables(sheet) -> str:
    """A digest of the variables the sheet substitutes: worked out once per set of them."""
    known = getattr(sheet, "_kept_variables", None)
    if known is None or known[0] is not sheet._variables:
        text = repr(sorted(sheet._variables.items())).encode()
        known = sheet._kept_variables = (sheet._variables, hashlib.sha256(text).hexdigest())
    return known[1]


def _parse_rules(self, css: str, read_from, is_default_rules: bool = False,
                 tie_breaker: int = 0, scope: str = "") -> list:
    if not warmstart.collecting():
        return _textual_parse(self, css, read_from, is_default_rules, tie_breaker, scope)
    own = (css, read_from, is_default_rules, tie_breaker, scope)
    rules = self._parse_cache.get(own)
    if rules is not None:  # parsed before in this process: Textual's own cache
        return rules
    key = (TEXTUAL, _variables(self), *own)
    data = warmstart.recall(KIND, key)
    if data is not None:
        try:
            rules = pickle.loads(data)
        except Exception:  # a damaged entry: parse it afresh
            rules = None
        if isinstance(rules, list):
            self._parse_cache[own] = rules
            return rules
    rules = _textual_parse(self, css, read_from, is_default_rules, tie_breaker, scope)
    warmstart.keep(KIND, key, pickle.dumps(rules, pickle.HIGHEST_PROTOCOL))
    return rules


stylesheet.Stylesheet._parse_rules = _parse_rules
