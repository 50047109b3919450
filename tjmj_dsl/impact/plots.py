"""The report's plots, as inline SVG made by matplotlib (the `impact` extra):
the same bytes for the same numbers (a fixed hash salt for the ids, no date,
text kept as text). Labels are ids and numbers only (pinyin, ASCII): the
tables beside them carry the rules' own names."""

from __future__ import annotations

import io
import re
from typing import Any

RC: dict[Any, Any] = {"svg.hashsalt": "tjmj-impact", "svg.fonttype": "none", "text.parse_math": False, "font.size": 9,
      "axes.spines.top": False, "axes.spines.right": False}


def _svg(fig: Any, prefix: str) -> str:
    """The figure as SVG to inline, its ids prefixed (several SVGs share one HTML document's ids)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # inline: no XML declaration or DOCTYPE
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)  # RDF naming the creator: not needed
    text = re.sub(r'(\bid="|url\(#|href="#)', lambda m: m.group(1) + prefix + "-", text)
    # scale with the page (a phone): the viewBox stays, the fixed size goes
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 style="width:100%;height:auto"', text, count=1)


def _figure(w: float, h: float) -> Any:
    from matplotlib.figure import Figure
    return Figure(figsize=(w, h))


def forest(report: dict[str, Any], ids: list[str]) -> str:
    """Each variant's difference from the base with its 95 % interval, one panel per measure."""
    import matplotlib
    labels = {m["id"]: m["label"] for m in report["measures"]}
    variants = [d["variant"] for d in report["differences"]]
    with matplotlib.rc_context(RC):
        fig = _figure(6.4, 0.35 + (0.35 * len(variants) + 0.7) * len(ids))
        axes = fig.subplots(len(ids), 1, squeeze=False)[:, 0]
        for ax, mid in zip(axes, ids):
            for y, d in enumerate(report["differences"]):
                x = d["measures"][mid]
                if x["diff"] is None:
                    continue
                color = "#b2182b" if x["detected"] else "#4d4d4d"
                ax.plot(x["ci"], [y, y], color=color, linewidth=2)
                ax.plot([x["diff"]], [y], "o", color=color)
            ax.axvline(0, color="#999999", linewidth=0.8)
            ax.set_yticks(range(len(variants)), variants)
            ax.set_ylim(-0.7, len(variants) - 0.3)
            ax.set_title(f"{mid}: {labels[mid]}", loc="left", fontsize=8)
        fig.tight_layout()
        return _svg(fig, "forest")


def bars(plot_id: str, title: str, categories: list[str], series: list[tuple[str, list[float]]], horizontal: bool = False) -> str:
    """Grouped bars: one group per category, one bar per arm."""
    import matplotlib
    with matplotlib.rc_context(RC):
        n = max(len(series), 1)
        width = 0.8 / n
        if horizontal:
            fig = _figure(6.4, 0.8 + 0.12 * n * len(categories))
        else:
            fig = _figure(6.4, 3.0)
        ax = fig.subplots()
        for i, (name, values) in enumerate(series):
            pos = [k + (i - (n - 1) / 2) * width for k in range(len(categories))]
            (ax.barh if horizontal else ax.bar)(pos, values, width, label=name)
        if horizontal:
            ax.set_yticks(range(len(categories)), categories)
            ax.invert_yaxis()
        else:
            ax.set_xticks(range(len(categories)), categories)
        ax.set_title(title, loc="left", fontsize=9)
        ax.legend(fontsize=7, frameon=False)
        fig.tight_layout()
        return _svg(fig, plot_id)
