"""Each profile's rulebook.html in a real browser: Debian's chromium, headless,
driven by Playwright with the system browser (never a browser of its own).
It must load with no console error and no network request, hold every
pattern and option section, the settlement and the combination table, draw its tiles with a size, print as a PDF
without the contents box, and leave a screenshot in the test's temporary directory.

Installed by tools/setup_test_deps.py (the README's test command); where
chromium or playwright cannot be had, the test is skipped naming the package."""

from __future__ import annotations

import os
import re
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAGES = {"seed-001": "generated/tianjin/rulebook.html",
         "seed-000-fan": "generated/tianjin/seed_000_fan/rulebook.html",
         "seed-000-coins": "generated/tianjin/seed_000_coins/rulebook.html"}
PATTERNS = ("tiliu", "zhuo5", "long", "su", "hundiao", "shuanghun", "benhun", "gangkai", "tianhu", "dihu",
            "tianting", "subenlong")
OPTIONS = ("score_table", "jin_gang", "tianting", "subenlong", "tianhu", "dihu", "first_draw_multiplier",
           "hun_kinds", "min_fan", "chan_points", "dealer_rotation", "last_tiles_claims")


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian package chromium is not installed (run: python tools/setup_test_deps.py)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Python package playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile_dir:
        ctx = p.chromium.launch_persistent_context(profile_dir, executable_path=CHROMIUM, headless=True, args=FLAGS,
                                                   viewport={"width": 420, "height": 900})
        try:
            yield ctx
        finally:
            ctx.close()


@pytest.mark.parametrize("profile", sorted(PAGES))
def test_rulebook_html_in_chromium(browser, profile: str, tmp_path: str) -> None:  # type: ignore[no-untyped-def]
    path = os.path.join(ROOT, PAGES[profile])
    url = "file://" + path
    page = browser.new_page()
    console: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    page.on("request", lambda r: requests.append(r.url) if r.url != url else None)
    page.goto(url, wait_until="load")
    assert console == []
    assert requests == []  # nothing fetched: no font, image, script or address outside the page
    assert page.title().startswith("天津麻将")
    for pid in PATTERNS:
        assert page.locator(f"section#pattern-{pid}").count() == 1, pid
        assert page.locator(f"section#pattern-{pid} .hand").count() >= 2, pid  # an example and a near miss
    for oid in OPTIONS:
        assert page.locator(f"section#option-{oid.replace('_', '-')}").count() == 1, oid
    assert page.locator("#hun-table").count() == 1
    assert page.locator("section#settlement table").count() >= 2  # the payment rules and a worked payment table
    # the combination table: realisable sets in tables by size, each row a witness drawn in tiles; impossible
    # sets grouped by reason, collapsed (a group opens on a click)
    assert page.locator("section#combinations table.combinations").count() >= 5
    assert page.locator("section#combinations table.combinations tr td .mini .tile").count() > 500
    witness = page.locator("section#combinations table.combinations .mini").first.bounding_box()
    assert witness is not None and witness["width"] > 50 and witness["height"] > 10
    groups = page.locator("section#combinations details")
    assert groups.count() >= 5 and page.locator("section#combinations details[open]").count() == 0
    sets = groups.first.locator("p.sets").first
    assert not sets.is_visible()
    groups.first.locator("summary").click()
    assert sets.is_visible() and "本混" in sets.inner_text()
    # tiles are drawn, with a size, and the page fits a phone's width
    tiles = page.locator(".tile")
    assert tiles.count() > 500
    box = tiles.first.bounding_box()
    assert box is not None and box["width"] > 10 and box["height"] > 15
    hun = page.locator("section#pattern-zhuo5 .slot.hun .tile").first.bounding_box()
    assert hun is not None and hun["width"] > 10
    assert page.evaluate("document.documentElement.scrollWidth") <= 420 + 1
    shot = os.path.join(str(tmp_path), f"rulebook-{profile}.png")
    page.screenshot(path=shot, full_page=False)
    assert os.path.getsize(shot) > 10_000
    # printing gives a clean sheet: the contents box is hidden for print, hands are not split across pages
    page.emulate_media(media="print")
    assert page.locator("nav.toc").is_hidden()
    assert page.evaluate("getComputedStyle(document.querySelector('.hand')).breakInside") == "avoid"
    pdf = os.path.join(str(tmp_path), f"rulebook-{profile}.pdf")
    page.pdf(path=pdf, format="A4")
    with open(pdf, "rb") as f:
        head = f.read()
    assert head.startswith(b"%PDF") and head.count(b"/Type /Page") > 10
    page.close()


# An example of the book, as its first line writes it, and the value its second line gives.
EXAMPLE = re.compile(r"^(?:例 Example|不是 Near miss)\. Hand (.+?), indicator (\S+?)"
                     r"(?:, won on the replacement of a (明杠|暗杠|金杠) kong|, (tianhu|dihu|tianting))?\.$")
VALUE = re.compile(r": (\S.* = \d+) fan — (和 wins|不能和 does not win)")
KONG_DRAW = {"明杠": "exposed", "暗杠": "concealed", "金杠": "hun"}


@pytest.mark.parametrize("profile", sorted(PAGES))
def test_the_page_scores_its_own_examples(browser, profile: str) -> None:  # type: ignore[no-untyped-def]
    """The in-page scorer (the profile's scorer.mjs, embedded): each example hand of the book's
    patterns, typed into its box with its indicator (and its kong or flag), shows the formula and
    verdict the book prints under it; and clicking tiles writes the hand."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto("file://" + os.path.join(ROOT, PAGES[profile]), wait_until="load")
    page.wait_for_selector("#score-verdict")
    flags = page.locator("#scorer input[data-flag]")
    hands = page.locator("section[id^=pattern-] .hand")
    checked = 0
    for i in range(hands.count()):
        lines = hands.nth(i).locator("p").evaluate_all("ps => ps.map((p) => p.textContent)")  # a tile's text: 七饼
        m = EXAMPLE.match(lines[0].strip())
        v = VALUE.search(lines[1]) if len(lines) > 1 else None
        if not (m and v):
            continue
        hand, indicator, kong, flag = m.groups()
        page.select_option("#kong-draw", KONG_DRAW[kong] if kong else "")
        for j in range(flags.count()):
            flags.nth(j).set_checked(flags.nth(j).get_attribute("data-flag") == flag)
        page.fill("#indicator", indicator)
        page.fill("#hand", hand)
        assert page.inner_text("#score-formula") == v.group(1), (hand, indicator)
        assert page.inner_text("#score-verdict") == ("和 WIN" if v.group(2) == "和 wins" else "不能和 no win"), hand
        assert page.inner_text("#score-text").startswith(("WIN" if v.group(2) == "和 wins" else "no win") + ": fan ")
        checked += 1
    assert checked >= 15
    # clicking tiles: 3m 4m 5m, then the winning tile 6m
    page.click("#pick-clear")
    for k in (2, 3, 4):
        page.click(f'#scorer button[data-tile="{k}"]')
    page.check("#pick-win")
    page.click('#scorer button[data-tile="5"]')
    assert page.input_value("#hand") == "3m 4m 5m +6m"
    assert "invalid request" in page.inner_text("#score-result")  # 4 tiles: not a hand
    assert errors == []
    page.close()


@pytest.mark.parametrize("profile", sorted(PAGES))
def test_rulebook_fits_a_phone_and_keeps_words_whole(browser, profile: str) -> None:  # type: ignore[no-untyped-def]
    """At 390 px nothing scrolls sideways (a table's rows become cards of `column: value` lines); on a
    desktop no table header breaks inside a word; the scoring box keeps each flag's checkbox beside
    its name."""
    url = "file://" + os.path.join(ROOT, PAGES[profile])
    page = browser.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url, wait_until="load")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("[...document.querySelectorAll('.tw')].filter(d => d.scrollWidth > d.clientWidth + 1).length") == 0
    labelled = page.evaluate("[...document.querySelectorAll('.tw td')].filter(td => td.dataset.label).length")
    assert labelled > 50
    # each flag's checkbox and the flag's name start on one line
    gaps = page.evaluate("""[...document.querySelectorAll('#scorer label.flag')].map(l => {
        const box = l.querySelector('input').getBoundingClientRect(), name = l.querySelector('code').getBoundingClientRect();
        return Math.abs((box.top + box.bottom) / 2 - (name.top + name.bottom) / 2); })""")
    assert gaps and max(gaps) < 12, gaps
    page.set_viewport_size({"width": 1280, "height": 900})
    # a header's code (a setting's or option's name) is never broken inside the word
    broken = page.evaluate("""[...document.querySelectorAll('th code')].filter(c => c.getClientRects().length > 1)
        .map(c => c.textContent)""")
    assert broken == []
    page.close()
