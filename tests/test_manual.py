"""The manual: it builds strictly, its pages ask no other host for anything, every file the code and the
docs cite exists, and the README stays a short front door."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What a page loads by itself (scripts, stylesheets, images, fonts): a link a reader clicks is not a request.
_LOADS = re.compile(
    r"""(?:<script[^>]*\ssrc|<img[^>]*\ssrc|<link[^>]*\shref|url\()\s*=?\s*["']?(https?:)?//"""
)
_CITED = re.compile(r"\b(docs/[\w./-]+\.md|gateway/README\.md)\b")


def test_the_manual_builds_strictly_and_loads_nothing_from_another_host(tmp_path):
    site = tmp_path / "site"
    mkdocs = Path(sys.executable).with_name("mkdocs")
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 19
    styles = sorted(site.rglob("*.css"))
    outside = [
        (str(path.relative_to(site)), match.group(0))
        for path in pages + styles
        for match in _LOADS.finditer(path.read_text(errors="replace"))
    ]
    assert outside == []


def _tracked_text_files() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.html", "*.toml", "*.yml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in names]


def test_every_document_the_code_and_the_docs_cite_exists():
    cited = {
        (str(path.relative_to(ROOT)), name)
        for path in _tracked_text_files()
        if path.exists()
        for name in _CITED.findall(path.read_text(errors="replace"))
    }
    assert cited, "the code cites its documents"
    assert sorted((where, name) for where, name in cited if not (ROOT / name).exists()) == []


def test_the_readme_is_a_short_front_door_that_links_the_manual():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 250
    assert "docs/index.md" in readme
    assert "make run" in readme and "make test" in readme
