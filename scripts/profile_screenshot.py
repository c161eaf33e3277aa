"""Regenerate docs/demo-profile.png: the profile section of the demo's report in a browser.

Runs the real ``beyondpass demo`` (offline, answers written for the demo) in a scratch
directory, opens its ``report.html`` in Debian's chromium through Playwright and saves a
screenshot of the profile section (its table and figure). The README shows the picture.

    python scripts/profile_screenshot.py [--out docs/demo-profile.png]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


def screenshot(report: Path, png: Path, width: int = 1400) -> None:
    """The profile section of ``report`` as ``png``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(report.as_uri())
            page.locator("section#profile").screenshot(path=str(png), animations="disabled")
        finally:
            browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "demo-profile.png")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bp-demo-") as tmp:
        demo = subprocess.run(
            [sys.executable, "-m", "beyondpass", "demo", "--out", tmp, "--json"],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )
        if demo.returncode != 0:
            print(f"beyondpass demo failed: {demo.stderr.strip()[-2000:]}", file=sys.stderr)
            return 1
        screenshot(Path(tmp) / "run" / "report.html", args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
