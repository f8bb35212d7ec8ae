"""The page's files: compressed for a browser that takes it, revalidated by ETag (a 304 with
no body when unchanged), and served with the page's security headers."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any

import pytest

from fakebot import FakeTelegram
from tests.web.sites import Site, open_site


@pytest.fixture
async def site(fake_telegram: FakeTelegram, tmp_path: Any) -> AsyncIterator[Site]:
    async with open_site(fake_telegram, tmp_path) as opened:
        yield opened


@pytest.mark.parametrize("path", ["", "static/app.js", "static/app.css", "static/replay.js"])
async def test_a_file_is_gzipped_and_then_revalidated_for_nothing(site: Site, path: str) -> None:
    name = path.removeprefix("static/") or "index.html"
    content = resources.files("bot.web").joinpath("static", name).read_bytes()
    url = site.base + path
    async with site.session.get(
        url, headers={"Accept-Encoding": "gzip"}, auto_decompress=False
    ) as response:
        assert response.status == 200
        assert response.headers["Content-Encoding"] == "gzip"
        packed = await response.read()
        etag = response.headers["ETag"]
        assert response.headers["Cache-Control"] == "no-cache"
        assert "Content-Security-Policy" in response.headers
    assert gzip.decompress(packed) == content and len(packed) < len(content)
    async with site.session.get(url, headers={"If-None-Match": etag}) as again:
        assert again.status == 304 and await again.read() == b""
    async with site.session.get(url, headers={"Accept-Encoding": "identity"}) as plain:
        assert plain.status == 200 and await plain.read() == content


async def test_only_the_pages_files_are_served(site: Site) -> None:
    for path in ("static/index.html", "static/../server.py", "static/nothing.js"):
        async with site.session.get(site.base + path) as response:
            assert response.status == 404, path


async def test_the_api_is_never_cached(site: Site) -> None:
    async with site.session.get(site.base + "healthz") as response:
        assert response.headers["Cache-Control"] == "no-store"
