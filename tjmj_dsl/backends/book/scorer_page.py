"""The rulebook's in-page scorer: rulebook.html embeds its profile's scorer.mjs
(the same text tjmj compile writes beside it) and a form where a reader types a
hand in the book's notation, or clicks tiles, and an indicator, and sees the
result as `tjmj score` prints it, the decomposition drawn as the book draws its
hands (engine_js/rulebook_page.mjs). Still one file that works offline: the
script is inline, and the page's Content-Security-Policy allows that one
script by its sha256 and nothing else."""

from __future__ import annotations

import base64
import hashlib
from importlib import resources
from typing import Any

from ...engine.contract import KONG_DRAWS
from ...ir import RuleSet
from .html import CSP, e, tile

SECTION_ID = "scorer"
TITLE = "算番 Score a hand"

CSS = """
#scorer form{display:grid;gap:.45rem;margin:.6rem 0}
#scorer label{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
#scorer input[type=text],#scorer select{font:inherit;padding:.25rem .4rem;border:1px solid var(--line);border-radius:.3rem;min-width:0}
#scorer #hand{flex:1 1 14rem}
#scorer #indicator{width:5.5rem}
#scorer .flags{display:flex;flex-wrap:wrap;gap:.2rem .9rem}
#scorer label.flag{flex-wrap:nowrap;align-items:baseline}
#scorer label.flag span{flex:1 1 auto;min-width:0}
#scorer .palette{display:flex;flex-wrap:wrap;gap:.15rem;margin:.4rem 0}
#scorer .palette button{padding:0;border:0;background:none;cursor:pointer}
#scorer .tools{display:flex;flex-wrap:wrap;gap:.4rem .9rem;align-items:center;margin:.3rem 0}
#scorer .tools button{font:inherit;padding:.1rem .6rem}
#scorer .result{margin:.6rem 0;padding:.55rem .7rem;border:1px solid var(--line);border-left:4px solid var(--accent);border-radius:.35rem;background:var(--paper)}
#scorer .result .tiles{display:flex;flex-wrap:wrap;gap:.55rem;align-items:flex-start;margin:.3rem 0}
#scorer pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85em;margin:.4rem 0 0}
#scorer ul.waits{list-style:none;padding-left:0}
@media print{#scorer{display:none}}
"""


def _script_safe(js: str) -> str:
    """Script text that cannot end its <script> element or open an HTML comment inside it:
    `</` becomes `<\\/` and `<!--` becomes `<\\!--`, which mean the same in every place
    JavaScript allows them (strings, regular expressions, comments)."""
    return js.replace("</", "<\\/").replace("<!--", "<\\!--")


def page_script(module_js: str) -> str:
    """The page's one script: the profile's scorer.mjs and the form's code."""
    ui = resources.files("tjmj_dsl").joinpath("engine_js", "rulebook_page.mjs").read_text(encoding="utf-8")
    return _script_safe(module_js + "\n// ---- the rulebook's form (tjmj_dsl/engine_js/rulebook_page.mjs) ----\n" + ui)


def section(rs: RuleSet) -> str:
    """The scorer's section: the form, the tile palette, where the result goes."""
    flags = "".join(f'<label class="flag"><input type="checkbox" data-flag="{e(f)}"> <span><code>{e(f)}</code> '
                    f'{e(meaning)}</span></label>' for f, meaning in rs.flags)
    palette = "".join(f'<button type="button" data-tile="{k}" title="{e(_name(k))}">{tile(k)}</button>' for k in range(34))
    names = dict(rs.kong_names)  # the kinds of kong, as the rule file calls them
    return "\n".join([
        f'<section id="{SECTION_ID}">',
        f"<h2>{e(TITLE)}</h2>",
        "<p>Type a hand as this book writes it: <code>345m 123s EEE 77m 45s +6s</code> (loose tiles in hand, "
        "<code>[555p]</code> an exposed pung, <code>[5555p]</code> an exposed kong, <code>(5555p)</code> a concealed "
        "kong, <code>+6s</code> the winning tile), or click the tiles; a hand without its winning tile lists the "
        "tiles that win it. The profile's scorer runs in this page (" + e(rs.profile or "(none)") + ").</p>",
        '<form id="score-form" autocomplete="off">',
        '<label>手牌 Hand <input type="text" id="hand" value="345m 123s EEE 77m 45s +6s" spellcheck="false"></label>',
        '<label>翻牌 Indicator <input type="text" id="indicator" value="7p" spellcheck="false"></label>',
        '<label>Drawn after a kong <select id="kong-draw"><option value="">—</option>'
        + "".join(f'<option value="{k}">{k} {e(names.get(k, ""))}</option>' for k in KONG_DRAWS)
        + '</select></label>',
        f'<div class="flags">{flags}</div>' if flags else "",
        "</form>",
        '<div class="tools"><span>点牌 Clicks go to: <label><input type="radio" name="pick-into" value="hand" checked> '
        'hand</label> <label><input type="radio" name="pick-into" value="indicator"> indicator</label></span>'
        '<label><input type="checkbox" id="pick-win"> next click is the winning tile (+)</label>'
        '<button type="button" id="pick-undo">⌫ last</button><button type="button" id="pick-clear">clear</button></div>',
        f'<div class="palette" aria-label="tiles">{palette}</div>',
        '<div class="result" aria-live="polite"><div id="score-result"></div><div class="tiles" id="score-tiles"></div>'
        '<pre id="score-text"></pre></div>',
        "</section>",
    ])


def _name(k: int) -> str:
    from ...tiles import name
    return name(k)


def page_parts(rs: RuleSet, module_js: str) -> dict[str, Any]:
    """What book/html.page() adds for the scorer: its CSS, section, script, and the
    Content-Security-Policy that lets this one script run."""
    script = page_script(module_js)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return {"extra_css": CSS, "extra_sections": (section(rs),), "script": script,
            "csp": f"{CSP}; script-src 'sha256-{digest}'", "extra_toc": ((SECTION_ID, TITLE),)}
