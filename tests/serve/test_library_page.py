"""The history library's page (issue 20 point 2): `/api/library/...` through the app, and `/library` in a real browser.

The library is built by ingesting four bundled games (one of each game) and two simulated Splendor games. The API's
answers are read back against the store (the list against SQL, a step's picture byte for byte against `tally replay
--svg`'s file, the charts against `library_charts`); every refusal is a 4xx JSON error with a stable id (fuzzed);
the page, on a phone and on a desktop, filters the list, opens a game and steps its replay by buttons, by keys and by
number, and shows the charts.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_page import DESKTOP, GOLDEN, TOLERANCE, differing, small_targets

from support.page_helpers import GAMES, ROOT, serving
from support.serve_helpers import AUTH, HOST
from tally.serve.app import create_app
from tally.store import library
from tally.store.library.charts import library_charts
from tally.store.recording.pictures import frame_name, write_replay_pictures
from tally.store.recording.results import replay_report
from tally.store.recording.simulate import simulate

FIXTURES = ["splendor-2p", "split-3p", "array-open-4p", "splice-open-2p"]
PHONE = {"width": 360, "height": 640}
WAIT = 20_000


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("library")
    sims = [Path(p) for p in simulate("splendor", 2, 7, folder / "sims").files]
    path = folder / "club.duckdb"
    summary = library.ingest(path, [*(GAMES / f"{name}.jsonl" for name in FIXTURES), *sims], jobs=1)
    assert not summary.rejected
    return path


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    return list(library.query(db, sql).rows())


def ask(
    db: Path | None,
    path: str,
    headers: dict[str, str] | None = None,
    method: str = "GET",
    folder: Path = ROOT / "fixtures",
) -> httpx.Response:
    async def call() -> httpx.Response:
        app = create_app(folder, HOST, db)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://table") as http:
            return await http.request(method, path, headers=AUTH if headers is None else headers)

    return asyncio.run(call())


def ok(db: Path, path: str) -> Any:
    answer = ask(db, path)
    assert answer.status_code == 200, answer.text
    return answer.json()


def game_of(db: Path, game: str) -> str:
    return str(rows(db, f"SELECT game_id FROM games WHERE game = '{game}' AND NOT simulated")[0][0])


# --------------------------------------------------------------------------- the API, read back against the store


def test_the_list_is_the_librarys_games_as_filtered(db: Path) -> None:
    everything = ok(db, "/api/library/games?simulated=all")
    assert everything["shown"]["total"] == 6 == len(everything["shown"]["games"])
    assert everything["games_known"] == ["array", "splendor", "splice", "split"]
    assert everything["people"] == sorted({p for (p,) in rows(db, "SELECT DISTINCT player FROM seats")})
    real = ok(db, "/api/library/games")  # real games by default
    assert sorted(g["game"] for g in real["shown"]["games"]) == sorted(name.split("-")[0] for name in FIXTURES)
    assert not any(g["simulated"] for g in real["shown"]["games"])
    simulated = ok(db, "/api/library/games?simulated=simulated")["shown"]["games"]
    assert [g["simulated"] for g in simulated] == [True, True]
    split = ok(db, "/api/library/games?game=split")["shown"]
    assert [g["game_id"] for g in split["games"]] == [game_of(db, "split")]
    assert split["filters"]["game"] == "split"
    cy = ok(db, "/api/library/games?player=cy&simulated=all")["shown"]
    assert cy["total"] == rows(db, "SELECT count(DISTINCT game_id) FROM seats WHERE player = 'cy'")[0][0]
    (day,) = rows(db, "SELECT strftime(min(started_at), '%Y-%m-%d') FROM games WHERE NOT simulated")[0]
    assert (
        ok(db, f"/api/library/games?until={day}")["shown"]["total"]
        == rows(db, f"SELECT count(*) FROM games WHERE NOT simulated AND CAST(started_at AS DATE) <= DATE '{day}'")[0][
            0
        ]
    )
    assert ok(db, "/api/library/games?since=2999-01-01")["shown"]["total"] == 0
    first = ok(db, "/api/library/games?simulated=all&limit=2")["shown"]
    second = ok(db, "/api/library/games?simulated=all&limit=2&offset=2")["shown"]
    assert [g["game_id"] for g in first["games"] + second["games"]] == [
        g["game_id"] for g in everything["shown"]["games"][:4]
    ]


def test_a_game_is_its_chart_and_its_replay_drawn_as_tally_replay_svg_draws_it(db: Path, tmp_path: Path) -> None:
    gid = game_of(db, "splendor")
    detail = ok(db, f"/api/library/games/{gid}")
    pos, frames = library.replay(db, gid)
    steps, page = detail["steps"], detail
    assert len(steps) <= 100 and detail["last"] == frames[-1].seq
    while page["next"] is not None:  # the rest of the replay, a page at a time
        page = ok(db, f"/api/library/games/{gid}/steps?after={page['next']}&limit=37")
        assert len(page["steps"]) <= 37 and page["last"] == frames[-1].seq
        steps += page["steps"]
    report = replay_report(pos, frames)
    assert steps == msgspec.to_builtins(report.steps)  # as `tally replay --json` gives them
    assert detail["game"]["game_id"] == gid and detail["game"]["finished"] is True
    assert detail["outcome"]["scores"] == pos.spec.outcome(pos.table.state).scores
    ET.fromstring(detail["chart"]["svg"])
    assert detail["chart"]["key"] == "game" and detail["chart"]["rows"]
    write_replay_pictures(pos, frames, tmp_path)  # what `tally replay --db DB GAME --svg DIR` writes
    last = frames[-1].seq
    for seq in (1, 2, last // 2, last):
        step = ok(db, f"/api/library/games/{gid}/steps/{seq}")
        assert step["seq"] == seq and step["last"] == last and step["text"] == frames[seq - 1].text
        assert step["svg"] == (tmp_path / frame_name(seq, last)).read_text(encoding="utf-8")


def test_the_charts_are_library_charts(db: Path) -> None:
    drawn = ok(db, "/api/library/charts")
    assert [c["key"] for c in drawn] == [c.key for c in library_charts(db)]
    assert [c["rows"] for c in drawn] == [c.rows for c in library_charts(db)]
    both = ok(db, "/api/library/charts?simulated=all&game=splendor")
    assert [c["games"] for c in both] == [c.games for c in library_charts(db, "splendor", simulated=True)]
    for chart in drawn:
        ET.fromstring(chart["svg"])


def test_an_alias_said_while_serving_is_in_the_next_answers(db: Path, tmp_path: Path) -> None:
    """The charts and a game's page are kept between questions: never past a change of the library."""
    import shutil

    mine = tmp_path / "club.duckdb"
    shutil.copyfile(db, mine)
    gid = game_of(mine, "split")

    def said() -> tuple[str, str, str]:
        return (
            ask(mine, "/api/library/charts").text,
            ask(mine, f"/api/library/games/{gid}").text,
            ask(mine, "/api/library/games?player=Cyril").text,
        )

    before = said()
    assert said() == before and "Cyril" not in before[0] + before[1] and gid not in before[2]
    import time

    time.sleep(2.5)  # the page lets the library go after 2 s (library_page.KEEP_OPEN): then it may be written
    library.alias(mine, "cy", "Cyril")
    charts, detail, listed_ = said()
    assert "Cyril" in charts and '"Cyril"' in detail
    assert gid in listed_


REFUSED = [
    ("/api/library/games?game=chess", 400, "serve.library.filter"),
    ("/api/library/games?since=2026-02-30", 400, "serve.library.filter"),
    ("/api/library/games?since=2026-12-02&until=2026-12-01", 400, "serve.library.filter"),
    ("/api/library/games?simulated=maybe", 400, "serve.library.filter"),
    ("/api/library/games?limit=0", 400, "serve.library.filter"),
    ("/api/library/games?colour=red", 400, "serve.library.filter"),
    ("/api/library/charts?simulated=simulated", 400, "serve.library.filter"),
    ("/api/library/games/0123456789abcdef", 404, "serve.library.game.unknown"),
    ("/api/library/games/0123456789abcdef/steps/1", 404, "serve.library.game.unknown"),
    ("/api/library/games/not-an-id", 400, "serve.library.game-id"),
]


@pytest.mark.parametrize(("path", "status", "error"), REFUSED)
def test_a_bad_question_is_a_4xx_with_a_stable_id(db: Path, path: str, status: int, error: str) -> None:
    answer = ask(db, path)
    assert (answer.status_code, answer.json()["error"]) == (status, error), answer.text


def test_a_step_that_is_not_in_the_replay_is_refused(db: Path) -> None:
    gid = game_of(db, "split")
    last = len(library.replay(db, gid)[1])
    for step in (0, last + 1, "x", "99999999999"):
        answer = ask(db, f"/api/library/games/{gid}/steps/{step}")
        assert (answer.status_code, answer.json()["error"]) == (400, "serve.library.step"), answer.text


def test_the_library_is_the_hosts(db: Path, tmp_path: Path) -> None:
    for headers, status, error in [
        ({}, 403, "serve.host-only"),
        ({"Authorization": "Bearer someone"}, 401, "serve.token.unknown"),
    ]:
        for path in ("/api/library/games", "/api/library/charts", f"/api/library/games/{game_of(db, 'array')}"):
            answer = ask(db, path, headers)
            assert (answer.status_code, answer.json()["error"]) == (status, error)
            assert "ana" not in answer.text
    answer = ask(tmp_path / "none.duckdb", "/api/library/games")
    assert (answer.status_code, answer.json()["error"]) == (404, "serve.library.missing")
    assert ask(tmp_path / "none.duckdb", "/api/library/games", {}).status_code == 403  # a watcher learns nothing


LIBRARY_PATHS = st.sampled_from(
    [
        "/api/library/games",
        "/api/library/charts",
        "/api/library/games/{id}",
        "/api/library/games/{id}/steps/3",
        "/api/library/games/{id}/steps/",
        "/api/library/games/{id}/steps",
        "/library",
        "/library/games/{id}",
        "/api/library/games/abcd",
        "/api/library",
        "/api/library/x",
    ]
)
WORDS = st.dictionaries(
    st.sampled_from(["game", "player", "since", "until", "simulated", "limit", "offset", "after", "x"]),
    st.sampled_from(
        [
            "",
            "splendor",
            "ana",
            "2026-12-01",
            "all",
            "real",
            "simulated",
            "-1",
            "3",
            "10000000000",
            "%00",
            "é",
            "2026-1-1",
        ]
    )
    | st.text(max_size=6),
    max_size=3,
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(["GET", "POST", "DELETE"]),
    path=LIBRARY_PATHS,
    words=WORDS,
    headers=st.sampled_from([AUTH, {}, {"Authorization": "Bearer nope"}]),
)
def test_no_question_of_the_library_ends_in_a_500(
    db: Path, method: str, path: str, words: dict[str, str], headers: dict[str, str]
) -> None:
    query = str(httpx.QueryParams(words))
    target = path.replace("{id}", game_of(db, "splice")) + (f"?{query}" if query else "")
    answer = ask(db, target, headers, method)
    assert answer.status_code < 500, (method, target, answer.text)
    if target.startswith("/api") and answer.status_code >= 400:
        assert isinstance(answer.json().get("error"), str), (method, target, answer.text)


# --------------------------------------------------------------------------- the page in a real browser


@pytest.fixture(scope="module")
def served(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with serving(tmp_path_factory.mktemp("tables"), "--db", str(db)) as running:
        yield running


def library_page(browser: Any, served: Any, size: dict[str, int], path: str = "/library") -> Any:
    context = browser.new_context(viewport=size, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(f"{served.url}{path}#token={served.token}")
    return page


def ready(page: Any, words: str) -> None:
    page.locator(f"body[data-ready='{words}']").wait_for(state="attached")


def listed(page: Any) -> list[str]:
    return [str(item.get_attribute("data-game-id")) for item in page.locator("#library-games li").all()]


def at_step(page: Any, seq: int) -> None:
    page.locator(f"body[data-step='{seq}']").wait_for(state="attached")


def fits(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page is wider than the screen"


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_page_filters_the_list_and_shows_the_charts(
    browser: Any, served: Any, db: Path, size: dict[str, int]
) -> None:
    page = library_page(browser, served, size)
    ready(page, "all")
    assert served.token not in page.url
    assert sorted(listed(page)) == sorted(game_of(db, name.split("-")[0]) for name in FIXTURES)
    assert page.locator("#count").inner_text() == "4 games"
    charts = page.locator("#charts figure")
    assert charts.count() == len(library_charts(db))
    assert page.locator("#charts figure[data-chart='win_rate_by_seat'] svg").count() == 1
    page.select_option("#f-game", "split")
    page.click("#filters button[type=submit]")
    ready(page, "game=split")
    assert listed(page) == [game_of(db, "split")]
    assert "/library?game=split" in page.url
    page.select_option("#f-game", "")
    page.select_option("#f-simulated", "simulated")
    page.click("#filters button[type=submit]")
    ready(page, "simulated=simulated")
    assert len(listed(page)) == 2 and page.locator("#library-games .tag").count() == 2
    assert "Counting simulated games too." in page.inner_text("#charts-note")
    page.select_option("#f-simulated", "all")
    page.fill("#f-player", "cy")
    page.fill("#f-since", "2999-01-01")
    page.click("#filters button[type=submit]")
    ready(page, "player=cy&since=2999-01-01&simulated=all")
    assert listed(page) == [] and page.inner_text("#count") == "No game of the library matches."
    page.click("#f-clear")
    ready(page, "all")
    assert len(listed(page)) == 4
    if size == PHONE:
        assert small_targets(page) == []
        fits(page, size["width"])
    assert page.errors == []


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_game_steps_by_buttons_keys_and_number(browser: Any, served: Any, db: Path, size: dict[str, int]) -> None:
    gid = game_of(db, "array")
    _, frames = library.replay(db, gid)
    page = library_page(browser, served, size)
    ready(page, "all")
    page.click(f"#library-games li[data-game-id='{gid}'] a")
    at_step(page, 1)
    assert page.url.endswith(f"/library/games/{gid}")
    assert page.locator("#chart svg").count() == 1 and page.locator("#board svg").count() == 1
    assert "array" in page.inner_text("#title")
    assert page.locator("#prev").is_disabled()
    page.click("#next")
    at_step(page, 2)
    page.click("#next")
    at_step(page, 3)
    assert page.inner_text("#step-text").startswith(f"#3 of {len(frames)} {frames[2].text}")
    page.click("#prev")
    at_step(page, 2)
    page.keyboard.press("ArrowRight")
    at_step(page, 3)
    page.keyboard.press("ArrowRight")
    at_step(page, 4)
    page.keyboard.press("ArrowLeft")
    at_step(page, 3)
    page.keyboard.press("End")
    at_step(page, len(frames))
    assert page.locator("#next").is_disabled()
    middle = len(frames) // 2
    page.fill("#jump-seq", str(middle))
    page.click("#jump button[type=submit]")
    at_step(page, middle)
    assert frames[middle - 1].text in page.inner_text("#step-text")
    page.keyboard.press("Home")
    at_step(page, 1)
    page.click("#steps-panel summary")
    assert page.locator("#steps li[data-seq]").count() == min(100, len(frames))  # a page of steps, then more on asking
    while page.locator(f"#steps li[data-seq='{middle + 1}']").count() == 0:
        page.click("#more-steps button")
    page.click(f"#steps li[data-seq='{middle + 1}'] button")
    at_step(page, middle + 1)
    if size == PHONE:
        fits(page, size["width"])
        page.click("#steps-panel summary")  # folded again: the steps' list is long
        assert small_targets(page) == []
    else:
        board, chart = page.locator(".board-side").bounding_box(), page.locator(".more").bounding_box()
        assert board["x"] + board["width"] <= chart["x"], "on a desktop the replay stands beside the chart"
    assert page.errors == []


def test_without_the_host_token_the_page_says_whose_the_library_is(browser: Any, served: Any, db: Path) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    page.set_default_timeout(WAIT)
    page.goto(f"{served.url}/library/games/{game_of(db, 'splice')}")
    page.locator("body[data-ready='refused']").wait_for(state="attached")
    assert "The library is the host's" in page.inner_text("#said")
    host = library_page(browser, served, PHONE, "/library/games/0123456789abcdef")
    host.locator("body[data-ready='refused']").wait_for(state="attached")
    assert "the library holds no game 0123456789abcdef (serve.library.game.unknown)" in host.inner_text("#said")


CHART_TEXTS = """figure => {
  const frame = figure.querySelector("svg").getBoundingClientRect();
  return [...figure.querySelectorAll("svg text")].map((text) => {
    const box = text.getBoundingClientRect();
    return {text: text.textContent, left: box.left - frame.left, right: frame.right - box.right,
            height: box.height};
  });
}"""


def test_at_390_px_the_list_names_each_game_and_no_chart_label_is_cut(browser: Any, served: Any, db: Path) -> None:
    """On a phone 390 px wide the list names each game as its host did (its log's name) beside its kind, and every
    chart's text is whole, within the chart and at least 9 px high: no label is cut or runs off the screen."""
    page = library_page(browser, served, {"width": 390, "height": 844}, "/library?simulated=all")
    ready(page, "simulated=all")
    names = {str(gid): str(name) for gid, name in rows(db, "SELECT game_id, source FROM games")}
    for item in page.locator("#library-games li").all():
        name = Path(names[str(item.get_attribute("data-game-id"))]).stem
        assert item.locator("strong.name").inner_text() == name
    assert page.locator("#charts figure").count() == len(library_charts(db, simulated=True))
    for figure in page.locator("#charts figure").all():
        for text in figure.evaluate(CHART_TEXTS):
            assert "…" not in text["text"], text
            assert text["left"] >= -0.5 and text["right"] >= -0.5, (figure.get_attribute("data-chart"), text)
            assert text["height"] >= 9, (figure.get_attribute("data-chart"), text)
        chart = figure.get_attribute("data-chart")
        labels = figure.evaluate("f => [...f.querySelectorAll('g.bar')].map((g) => [g.dataset.label, g.textContent])")
        for label, inside in labels:
            assert " ".join(label.split()) in " ".join(inside.split()), (chart, label)
    fits(page, 390)
    gid = game_of(db, "split")
    game = library_page(browser, served, {"width": 390, "height": 844}, f"/library/games/{gid}")
    at_step(game, 1)
    assert game.inner_text("#title").startswith("split-3p · split · ")
    assert page.errors == [] and game.errors == []


def test_golden_library_game_page(browser: Any, served: Any, db: Path, request: pytest.FixtureRequest) -> None:
    gid = game_of(db, "splendor")
    page = library_page(browser, served, {"width": 390, "height": 844}, f"/library/games/{gid}")
    at_step(page, 1)
    page.fill("#jump-seq", "40")
    page.click("#jump button[type=submit]")
    at_step(page, 40)
    page.locator("#jump-seq").blur()
    shot = page.screenshot(animations="disabled", caret="hide")
    golden = GOLDEN / "library-game-splendor.png"
    if request.config.getoption("--snapshot-update", default=False):
        golden.write_bytes(shot)
    assert golden.exists(), f"no golden page {golden.name}: run pytest {__file__} --snapshot-update and look at it"
    compared = differing(browser, golden.read_bytes(), shot)
    assert compared["differ"] >= 0, f"the page's size changed: {compared['size']}"
    assert compared["differ"] <= TOLERANCE * compared["total"], compared


def test_the_library_benchmark_runs(tmp_path: Path) -> None:
    """A smoke run of bench/bench_library.py (behaviour only, never a timing assertion)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_library.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for line in (
        "inside DuckDB",
        "chart        closest_games",
        "stats report  1",
        "library_charts whole",
        "tally serve on loopback",
        "a game: chart and replay",
        "a step's picture",
    ):
        assert line in done.stdout, done.stdout
