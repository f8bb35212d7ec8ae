"""Per-user token buckets: how often one person may press, type or call the web table."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class _Bucket:
    tokens: float
    at: float


class Throttle:
    """Per-user token buckets: one person hammering buttons cannot slow other tables."""

    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(2.0, rate * 2)
        self._buckets: dict[int, _Bucket] = {}

    def allow(self, user_id: int, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(user_id)
        if bucket is None:
            bucket = self._buckets[user_id] = _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        if len(self._buckets) > 10_000:  # forget idle users now and then
            self._buckets = {k: b for k, b in self._buckets.items() if now - b.at < 60}
        return True
