"""The report for people: a Markdown summary and one self-contained HTML file
(inline CSS and SVG, no script, no request to anywhere; readable on a phone).
Every text from the rules or the command line is shown inertly (escaped)."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from ..inert import shown


def _fmt(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def _ci(ci: Any) -> str:
    return "–" if not ci or ci[0] is None else f"{ci[0]:.4g} to {ci[1]:.4g}"


def _cell(x: dict[str, Any]) -> str:
    return "–" if x["diff"] is None else f"{x['diff']:+.4g} ({_ci(x['ci'])})"


def _yes(x: dict[str, Any]) -> str:
    return ' class="yes"' if x["detected"] else ""


def _md(text: Any) -> str:
    """A table cell's text: shown, with Markdown's table and emphasis characters escaped."""
    s = shown(text)
    for c in "\\|*_`[]<>#":
        s = s.replace(c, "\\" + c)
    return s


def _code(text: Any) -> str:
    """A Markdown code span of the text, shown: fenced by one backtick more than its longest run of
    them (CommonMark), so a backtick in a seed or a file name cannot end the span and let what
    follows (raw HTML) be read as Markdown; padded with a space when the text starts or ends with
    a backtick or a space (a renderer strips one space from each side)."""
    s = shown(text)
    fence = "`" * (max((len(r) for r in re.findall("`+", s)), default=0) + 1)
    pad = " " if s[:1] in ("`", " ") or s[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _rules_line(a: dict[str, Any], base: dict[str, Any] | None = None) -> str:
    """An arm's rules: name, profile, sha256 and every option (a variant: the options that differ from the base's)."""
    r = a["rules"]
    if base is None:
        return f"{r['name']} profile {r['profile']} sha256 {r['sha256']}; options: " + ", ".join(
            f"{k}={v}" for k, v in r["options"].items())
    b = base["rules"]["options"]
    diff = [f"{k}={v}" for k, v in r["options"].items() if b.get(k) != v]
    return (f"{r['name']} profile {r['profile']} sha256 {r['sha256']}; options as the base's but "
            + (", ".join(diff) if diff else "none differ"))


def _arm_line(rep: dict[str, Any], i: int) -> str:
    return _rules_line(rep["arms"][i], rep["arms"][0] if i else None)


def markdown(rep: dict[str, Any]) -> str:
    ms = rep["measures"]
    names = [a["name"] for a in rep["arms"]]
    out = [f"# Impact report: {', '.join(_md(n) for n in names[1:]) or 'base only'} against {_md(names[0])}", "",
           f"- command: {_code(rep['command'])}", f"- seed {_md(rep['seed'])}; {rep['walls']} walls, each played "
           f"with every player mix seated {rep['seatings_per_wall']} ways; mixes: "
           + "; ".join(",".join(m) for m in rep["mixes"])]
    for i, a in enumerate(rep["arms"]):
        out.append(f"- {_md(a['name'])} ({_code(a['spec'] or 'the rules as given')}): {_md(_arm_line(rep, i))}")
    if rep["differences"]:
        out += ["", "## Headline", "", "| variant | " + " | ".join(_md(h) for h in rep["headline"]) + " |",
                "|---|" + "---|" * len(rep["headline"])]
        for d in rep["differences"]:
            out.append(f"| {_md(d['variant'])} | " + " | ".join(_cell(d["measures"][h]) for h in rep["headline"]) + " |")
    out += ["", "## Method", "", rep["method"], ""]
    if rep["differences"]:
        out += ["## Differences from the base", "",
                f"{rep['differences_reported']} differences are reported; headline measures (declared before any data): "
                + ", ".join(rep["headline"]) + ". At 95 % about one interval in twenty excludes 0 by chance: "
                "read the exploratory ones (and the Bonferroni column) with that in mind.", ""]
        for d in rep["differences"]:
            out += [f"### {_md(d['variant'])}", "", "| measure | difference | 95 % CI | Bonferroni | verdict |",
                    "|---|---|---|---|---|"]
            for m in ms:
                x = d["measures"][m["id"]]
                star = " (headline)" if m["headline"] else ""
                out.append(f"| {_md(m['label'])}{star} | {_fmt(x['diff'])} | {_ci(x['ci'])} | "
                           f"{'detected' if x['detected_bonferroni'] else '–'} | {_md(x['verdict'])} |")
            out.append("")
    out += ["## Each arm", "", "| measure | " + " | ".join(_md(n) for n in names) + " |",
            "|---|" + "---|" * len(names)]
    for m in ms:
        cells = [f"{_fmt(a['measures'][m['id']]['value'])} ({_ci(a['measures'][m['id']]['ci'])})" for a in rep["arms"]]
        out.append(f"| {_md(m['label'])} | " + " | ".join(cells) + " |")
    out += ["", "Dealer's mean balance by the bets (descriptive, every mix pooled; who sits is not random):", ""]
    for a in rep["arms"]:
        parts = [f"{k} {b['value']}: {_fmt(b['dealer_balance'])} ({b['hands']} hands)"
                 for k, rows in a["dealer_by_bets"].items() for b in rows]
        out.append(f"- {_md(a['name'])}: " + "; ".join(parts))
    return "\n".join(out) + "\n"


CSS = ("body{overflow-wrap:anywhere;font-family:system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:0.8rem;line-height:1.4}"
       "table{overflow-wrap:normal;border-collapse:collapse;font-size:0.85rem;display:block;overflow-x:auto}"
       "td,th{border:1px solid #ccc;padding:0.2rem 0.4rem;text-align:left;vertical-align:top}"
       ".yes{color:#b2182b;font-weight:bold}code{word-break:break-all}svg{max-width:100%}")


def html_report(rep: dict[str, Any]) -> str:
    from . import plots
    e = lambda s: html.escape(shown(s))  # noqa: E731
    names = [a["name"] for a in rep["arms"]]
    ms = rep["measures"]
    body = [f"<h1>Impact report: {e(', '.join(names[1:]) or 'base only')} against {e(names[0])}</h1>",
            f"<p>command: <code>{e(rep['command'])}</code></p>",
            f"<p>seed {e(rep['seed'])}; {rep['walls']} walls, each played with every player mix seated "
            f"{rep['seatings_per_wall']} ways; mixes: {e('; '.join(','.join(m) for m in rep['mixes']))}</p><ul>"]
    for i, a in enumerate(rep["arms"]):
        body.append(f"<li><b>{e(a['name'])}</b> (<code>{e(a['spec']) or 'the rules as given'}</code>): "
                    f"{e(_arm_line(rep, i))}</li>")
    body.append("</ul>")
    if rep["differences"]:
        body += ["<h2>Headline</h2>", "<p>Each variant minus the base, with its 95 % interval; "
                 "<span class=\"yes\">red</span>: the interval excludes 0.</p>",
                 "<table><tr><th>variant</th>" + "".join(f"<th>{e(h)}</th>" for h in rep["headline"]) + "</tr>"]
        for d in rep["differences"]:
            body.append(f"<tr><td>{e(d['variant'])}</td>" + "".join(
                f"<td{_yes(d['measures'][h])}>{e(_cell(d['measures'][h]))}</td>"
                for h in rep["headline"]) + "</tr>")
        body += ["</table>", "<h2>Differences from the base</h2>",
                 f"<p>{rep['differences_reported']} differences are reported; the headline measures were declared "
                 f"before any data: {e(', '.join(rep['headline']))}. At 95 % about one interval in twenty excludes 0 "
                 "by chance.</p>", plots.forest(rep, rep["headline"])]
        for d in rep["differences"]:
            body += [f"<h3>{e(d['variant'])}</h3>", "<table><tr><th>measure</th><th>difference</th><th>95 % CI</th>"
                     "<th>Bonferroni</th><th>verdict</th></tr>"]
            for m in ms:
                x = d["measures"][m["id"]]
                cls = ' class="yes"' if x["detected"] else ""
                body.append(f"<tr><td>{e(m['label'])}{' (headline)' if m['headline'] else ''}</td>"
                            f"<td{cls}>{e(_fmt(x['diff']))}</td><td>{e(_ci(x['ci']))}</td>"
                            f"<td>{'detected' if x['detected_bonferroni'] else '–'}</td><td>{e(x['verdict'])}</td></tr>")
            body.append("</table>")
    body += ["<h2>Each arm</h2>", "<table><tr><th>measure</th>" + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr>"]
    for m in ms:
        body.append(f"<tr><td>{e(m['label'])}</td>" + "".join(
            f"<td>{e(_fmt(a['measures'][m['id']]['value']))}<br><small>{e(_ci(a['measures'][m['id']]['ci']))}</small></td>"
            for a in rep["arms"]) + "</tr>")
    body += ["</table>", "<h2>Method</h2>", f"<p>{e(rep['method'])}</p>"]
    fans = sorted({int(k) for a in rep["arms"] for k in a["fan_distribution"]})
    if fans:
        series = [(a["name"], [a["fan_distribution"].get(str(f), 0) / max(a["wins_counted"], 1) for f in fans])
                  for a in rep["arms"]]
        body += ["<h2>Fan of a win</h2>", plots.bars("fan", "share of wins by fan", [str(f) for f in fans], series)]
    pats = [m["id"].split(":", 1)[1] for m in ms if m["id"].startswith("pattern:")][:20]
    if pats:
        series = [(a["name"], [a["measures"]["pattern:" + p]["value"] or 0.0 for p in pats]) for a in rep["arms"]]
        body += ["<h2>Patterns among wins</h2>", plots.bars("patterns", "share of wins with the pattern", pats, series, True)]
    body += ["<h2>The report as data</h2>", "<p>The same numbers: <code>tjmj impact … --json</code> "
             "(schemas/impact.schema.json).</p>",
             f"<script type=\"application/json\" id=\"report\">{_script_json(rep)}</script>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<title>tjmj impact report</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _script_json(rep: dict[str, Any]) -> str:
    """The report inside a <script type="application/json">: '<', '>' and '&' escaped, so no text can end it."""
    s = json.dumps(rep, ensure_ascii=True, sort_keys=True)  # ASCII: no control or bidi character in the page
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
