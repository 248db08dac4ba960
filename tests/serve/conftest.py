"""What the page tests of this folder share: one Chromium per test module, Debian's, driven by Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from support.page_helpers import need_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable)
        try:
            yield launched
        finally:
            launched.close()
