"""`tally sql`'s table off a terminal is written without rich where rich's layout is simple (`_plain_table_text`):
it must be, character for character, what rich prints there, and rich must still print every table it would lay
out otherwise (too wide, characters wider than one column)."""

from __future__ import annotations

import io
import random
import string

import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tally.cli.library_commands import PIPED_WIDTH, _plain_table_text


def by_rich(headers: list[str], right: list[bool], cells: list[list[str | None]], said: str) -> str:
    """What `_print_table` prints through rich, on a console like `render.console()` off a terminal."""
    out = io.StringIO()
    console = Console(file=out, width=PIPED_WIDTH, highlight=False, markup=False, emoji=False)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for name, is_right in zip(headers, right):
        table.add_column(name, justify="right" if is_right else "left", overflow="fold")
    for values in cells:
        table.add_row(*[Text(v) if v is not None else Text("NULL", style="dim") for v in values])
    console.print(table)
    console.print(Text(said, style="dim"))
    return out.getvalue()


def random_table(rng: random.Random) -> tuple[list[str], list[bool], list[list[str | None]], str]:
    columns = rng.randint(1, 6)
    alphabet = string.ascii_letters + string.digits + " .,:-_[]{}'\"/\\*#@!"

    def word(most: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, most)))

    headers = [word(12) or "x" for _ in range(columns)]
    right = [rng.random() < 0.5 for _ in range(columns)]
    cells: list[list[str | None]] = [
        [None if rng.random() < 0.1 else word(rng.choice((3, 10, 25))) for _ in range(columns)]
        for _ in range(rng.randint(0, 8))
    ]
    return headers, right, cells, f"{len(cells)} rows"


def test_the_plain_table_is_what_rich_prints() -> None:
    rng = random.Random(20)
    written = 0
    for _ in range(400):
        table = random_table(rng)
        plain = _plain_table_text(*table)
        if plain is not None:
            written += 1
            assert plain == by_rich(*table), table
    assert written > 200  # most of these tables fit the page: the fast path is the one taken


@pytest.mark.parametrize(
    "table",
    [
        (["name"], [False], [["a" * 120]], "1 row"),  # wider than the page: rich folds the cell
        (["a", "b"], [False, True], [["x" * 60, "y" * 39]], "1 row"),  # 60 + 2 + 39 = 101 columns
        (["name"], [False], [["Zoë"]], "1 row"),  # not ASCII: rich measures the cells
        (["name"], [False], [["日本"]], "1 row"),  # two columns a character
        (["name "], [True], [["a"]], "1 row"),  # a space at an end: rich's wrapping trims it
    ],
)
def test_what_the_plain_table_cannot_lay_out_is_left_to_rich(table: tuple) -> None:  # type: ignore[type-arg]
    assert _plain_table_text(*table) is None


def test_a_table_exactly_as_wide_as_the_page_is_written_plain_and_the_same() -> None:
    table = (["a", "b"], [False, True], [["x" * 60, "y" * 38]], "1 row")
    assert _plain_table_text(*table) == by_rich(*table)
