"""Benchmarks with their committed results (``bench/results/``). Run each as a module:
``.venv/bin/python -m bench.engine``."""

from __future__ import annotations

import datetime
import os
import platform


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or what ``platform`` knows elsewhere."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> str:
    """One line naming the machine a figure was measured on: figures mean nothing without it."""
    try:
        load = f", load average {os.getloadavg()[0]:.2f} at start"
    except OSError:
        load = ""
    return (
        f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}{load}"
    )


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
