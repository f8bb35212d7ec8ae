"""/stats' picture: a player's score over their games, one panel per game, with the game's
title thresholds (等级) as horizontal bands. Pure: figures in, PNG bytes out.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, no global figure state), so
that it may run in a worker thread (``asyncio.to_thread``) while the event loop goes on.
Chinese needs a font that has it: :func:`cjk_font` finds one (Noto Sans CJK, which ``make
browser`` installs); without one the caller passes labels without Chinese.
"""

from __future__ import annotations

import functools
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # matplotlib is imported when the first picture is drawn, not at start-up
    from matplotlib.axes import Axes
    from matplotlib.font_manager import FontProperties

log = logging.getLogger(__name__)

#: where a font with Chinese is looked for, best first
CJK_FONTS: Final = (
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
    Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc"),
    Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"),
    Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"),
    Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"),
)
#: the picture's width in inches at DPI dots per inch (900 px), and each panel's height
WIDTH: Final = 9.0
PANEL_HEIGHT: Final = 3.2
DPI: Final = 100
#: past this many games the line has no markers (they would merge into a smear)
MARKERS_UP_TO: Final = 60
COLORS: Final = ("#d1495b", "#00798c", "#edae49", "#30638e")
BAND_SHADES: Final = ("#f3f1ea", "#e6e9ef")


@dataclass(frozen=True, slots=True)
class Band:
    """A title's range of scores: from ``low`` (None: no lower end) up to ``high`` (None:
    no upper end)."""

    low: int | None
    high: int | None
    label: str


@dataclass(frozen=True, slots=True)
class Series:
    """One game's line: the score before the first game, then after each game, in order
    (x = 0, 1, 2 …), and the game's bands."""

    label: str
    scores: tuple[int, ...]
    bands: tuple[Band, ...]


@dataclass(frozen=True, slots=True)
class ChartText:
    title: str
    x_label: str
    y_label: str


@functools.cache
def cjk_font(candidates: tuple[Path, ...] = CJK_FONTS) -> Path | None:
    """The first font file of ``candidates`` that exists, or None (said once in the log)."""
    for path in candidates:
        if path.is_file():
            return path
    log.warning(
        "no font with Chinese found (looked for %s); /stats pictures are drawn without Chinese",
        ", ".join(str(path) for path in candidates),
    )
    return None


def _visible_range(scores: Sequence[int]) -> tuple[float, float]:
    low, high = min(scores), max(scores)
    pad = max(20.0, (high - low) * 0.15)
    return low - pad, high + pad


def _draw_bands(
    axes: Axes, bands: Sequence[Band], low: float, high: float, font: FontProperties | None
) -> None:
    shown = [
        band
        for band in bands
        if (band.high is None or band.high > low) and (band.low is None or band.low < high)
    ]
    for index, band in enumerate(shown):
        bottom = low if band.low is None else max(low, band.low)
        top = high if band.high is None else min(high, band.high)
        axes.axhspan(bottom, top, color=BAND_SHADES[index % 2], zorder=0, linewidth=0)
        if band.low is not None and band.low > low:
            axes.axhline(band.low, color="#9a9a9a", linewidth=0.6, linestyle="--", zorder=1)
        axes.text(
            0.995,
            (bottom + top) / 2,
            band.label,
            transform=axes.get_yaxis_transform(),
            ha="right",
            va="center",
            fontsize=9,
            color="#555555",
            fontproperties=font,
            zorder=2,
        )


def draw(series: Sequence[Series], text: ChartText, font: Path | None = None) -> bytes:
    """The PNG: one panel per series (those with scores), stacked. ``font``: a font file for
    the labels (one with Chinese when they have any)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.ticker import MaxNLocator

    drawn = [one for one in series if one.scores]
    if not drawn:
        raise ValueError("nothing to draw: no series has a score")
    props = None if font is None else FontProperties(fname=str(font))
    height = PANEL_HEIGHT * len(drawn) + 0.7
    figure = Figure(figsize=(WIDTH, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    figure.suptitle(text.title, fontproperties=props, fontsize=13)
    for index, one in enumerate(drawn):
        axes = figure.add_subplot(len(drawn), 1, index + 1)
        low, high = _visible_range(one.scores)
        _draw_bands(axes, one.bands, low, high, props)
        games = range(len(one.scores))
        axes.plot(
            games,
            one.scores,
            color=COLORS[index % len(COLORS)],
            linewidth=2,
            marker="o" if len(one.scores) <= MARKERS_UP_TO else None,
            markersize=4,
            zorder=3,
        )
        axes.set_ylim(low, high)
        axes.set_xlim(-0.3, len(one.scores) - 0.7)
        if len(one.scores) <= 13:
            axes.set_xticks(list(games))
        else:
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_title(one.label, fontproperties=props, fontsize=11, loc="left")
        axes.set_ylabel(text.y_label, fontproperties=props)
        if index == len(drawn) - 1:
            axes.set_xlabel(text.x_label, fontproperties=props)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()
