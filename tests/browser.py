"""What every browser test shares: Debian's Chromium, launched headless, and where screenshots go."""

from __future__ import annotations

from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps calling out of this offline machine.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_launch(playwright):
    """Headless Chromium (Playwright's sync API); the artifacts folder is made ready for screenshots."""
    ARTIFACTS.mkdir(exist_ok=True)
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
