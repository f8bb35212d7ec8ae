"""The page and its static files: read once, compressed once, revalidated by ETag.

Each file is served with an ETag (a hash of its content) and ``Cache-Control: no-cache``: a
browser keeps it and asks again with ``If-None-Match``, and an unchanged file costs a 304 with
no body. Text files go gzip-compressed to a browser that accepts it.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from importlib import resources

from aiohttp import web

#: what the page may load, and as what
TYPES = {
    "index.html": "text/html",
    "app.js": "application/javascript",
    "app.css": "text/css",
    "replay.js": "application/javascript",
}


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    gzipped: bytes
    etag: str
    content_type: str


def _load(name: str) -> Asset:
    body = resources.files("bot.web").joinpath("static", name).read_bytes()
    etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
    return Asset(body, gzip.compress(body, 9, mtime=0), etag, TYPES[name])


class Assets:
    def __init__(self) -> None:
        self._assets = {name: _load(name) for name in TYPES}

    def response(self, request: web.Request, name: str) -> web.StreamResponse:
        asset = self._assets.get(name)
        if asset is None:
            raise web.HTTPNotFound()
        headers = {"ETag": asset.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
        if asset.etag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        body = asset.body
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"
        return web.Response(
            body=body, content_type=asset.content_type, charset="utf-8", headers=headers
        )
