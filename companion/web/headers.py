"""What every answer of the phones' web server tells the browser showing it: run only the
Pi's own scripts and styles, sniff no type, send no address on, and keep no copy of
anything that holds a code.

One hook on every answer the app makes (aiohttp's `on_response_prepare`): pages, the API,
the static files, event streams, and the refusals the middlewares answer (a 404, a 403
cross_origin, a 429), so no route can forget them. The policy is the same for every page but
the verify page (/fair), which inlines its scripts and its style so that a saved copy
checks a record with no Pi: its policy allows exactly those, by their SHA-256 hashes,
computed once from the page's files when the app is made. A hash taken from the answer
itself would allow whatever ended up in it, an injected script too.

What a player would notice if it were missing: a name or a word that slipped past the
boundary as markup could run a script in a seat's page (and read its code); another site
could show a seat's page in a frame and have a player tap on it; a shared phone's back
button or cache could bring back a seat's page or answers.
"""
from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from aiohttp import web

# Sealed answers and hellos (/api/sealed/events too): a seat's or the host's secrets.
PRIVATE_PATHS = ("/api/hello", "/api/sealed")
# The pages opened with a code in the address's fragment: the seat's, the host's, the table's.
CODE_PAGES = frozenset({"/s", "/h", "/j"})
VERIFY_PAGE = "/fair"
# The scripts a page loads from the Pi, its styles, its fetches and event streams: all from
# the Pi, and nothing inline, no eval, no frames, no plugins, no other origin. Images may be
# `data:` too: every page's icon is an empty one (`<link rel="icon" href="data:,">`), so no
# browser asks the Pi for a /favicon.ico it does not have.
NOTHING_ELSE = ("default-src 'none'", "base-uri 'none'", "form-action 'self'",
                "frame-ancestors 'none'", "object-src 'none'", "connect-src 'self'",
                "img-src 'self' data:", "font-src 'self'")
SCRIPT_TAG = re.compile(r'<script src="([^"]+)"></script>')
STYLE = re.compile(r"<style>(.*?)</style>", re.S)


def policy(scripts: str, styles: str) -> str:
    return "; ".join((*NOTHING_ELSE, f"script-src {scripts}", f"style-src {styles}"))


def source_hash(text: str) -> str:
    """A CSP hash source: the SHA-256 of an inline element's text, exactly as the page holds
    it."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def inlined_script(folder: Path, name: str) -> str:
    """A script's text as the verify page holds it inline (server.verify_page): on a line of
    its own, with no `</script` that would end the element early."""
    return "\n" + (folder / name).read_text(encoding="utf-8").replace("</script", "<\\/script")


def verify_policy(folder: Path) -> str:
    """The verify page's policy: the scripts verify.html names, inlined, and its own style
    element, each by its hash; nothing from anywhere else. (Its words are a JSON data block,
    which no browser runs, so it needs nothing.)"""
    html = (folder / "verify.html").read_text(encoding="utf-8")
    scripts = [source_hash(inlined_script(folder, name)) for name in SCRIPT_TAG.findall(html)]
    styles = [source_hash(style) for style in STYLE.findall(html)]
    return policy(" ".join(scripts) or "'none'", " ".join(styles) or "'none'")


def protect(folder: Path):
    """The on_response_prepare hook for an app serving the pages in `folder`."""
    pages = policy("'self'", "'self'")
    verify = verify_policy(folder)

    async def headers(request: web.Request, response: web.StreamResponse) -> None:
        path = request.path
        response.headers["Content-Security-Policy"] = verify if path == VERIFY_PAGE else pages
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        if path in CODE_PAGES or path.startswith(PRIVATE_PATHS):
            response.headers["Cache-Control"] = "no-store"
    return headers
