"""The pages' own files (scripts, styles, HTML), served from memory.

Only the plain names of the files in the static folder are served: any other path under
`/static/` (a missing file, `%252e%252e`, `....//`, a backslash, a folder) is the same
`404 not_found` JSON as every other refusal. aiohttp's static route answered some of those
with an empty `application/octet-stream` 404 that no page could read.

A file is read whole and answered from memory, so a client that never reads its answer
holds its socket and nothing more: a file left open for every such stranger would count
twice against the server's file descriptors (companion/web/guard.py sizes the connection
caps at one descriptor each). A file is read again when it changes on disk.
"""
from __future__ import annotations

import mimetypes
import re
from pathlib import Path

from aiohttp import web

# no folders but vendor/ (the pages' cryptography, vendored), no dots but one
NAME = re.compile(r"(?:vendor/)?[A-Za-z0-9][A-Za-z0-9_-]*\.[a-z0-9]+")


class Files:
    def __init__(self, folder: Path):
        self.folder = folder
        self._read: dict[str, tuple[tuple[int, int], bytes, str]] = {}

    def response(self, name: str, request: web.Request) -> web.Response:
        """`name`'s bytes, with an ETag the browser revalidates (a 304 when unchanged);
        `404 not_found` (raised) for anything but a plain file of the folder."""
        if not NAME.fullmatch(name):
            raise web.HTTPNotFound()
        path = self.folder / name
        try:
            stat = path.stat()
        except OSError:
            raise web.HTTPNotFound() from None
        if not path.is_file():
            raise web.HTTPNotFound()
        version = (stat.st_mtime_ns, stat.st_size)
        known = self._read.get(name)
        if known is None or known[0] != version:
            try:
                known = (version, path.read_bytes(), f'"{version[0]:x}-{version[1]:x}"')
            except OSError:
                raise web.HTTPNotFound() from None
            self._read[name] = known
        _, body, etag = known
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag})
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        charset = "utf-8" if kind.startswith("text/") or kind.endswith("javascript") else None
        return web.Response(body=body, content_type=kind, charset=charset,
                            headers={"ETag": etag})

    async def static(self, request: web.Request) -> web.Response:
        """GET /static/{name}: the route takes any tail, so every odd path ends here."""
        return self.response(request.match_info["name"], request)

    def page(self, name: str):
        async def handler(request: web.Request) -> web.Response:
            return self.response(name, request)
        return handler
