"""The workspace's header links to the manual, and the static files' server answers there with the built
manual (config/manual.py): its pages, its pictures; nothing when it is not built; the link follows
MANUAL_URL when the manual is published elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

ROOT = Path(__file__).resolve().parents[2]
LINK = '<a class="manual" id="manual-link" href="{}">'

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def built_manual(tmp_path_factory) -> Path:
    """`make docs` into a temporary folder: the tree's site/ is left alone."""
    site = tmp_path_factory.mktemp("manual") / "site"
    mkdocs = Path(sys.executable).with_name("mkdocs")
    subprocess.run(
        [str(mkdocs), "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=True,
    )
    return site


def test_the_header_links_to_the_manual(manager):
    client = Client()
    client.force_login(manager)
    client.cookies["django_language"] = "it"
    page = client.get("/hits/")
    assert page.status_code == 200
    assert LINK.format("/manual/") + "Manuale</a>" in page.content.decode()


@override_settings(MANUAL_URL="https://manual.casino.example/progressivo/")
def test_the_link_follows_manual_url(manager):
    client = Client()
    client.force_login(manager)
    page = client.get("/hits/")
    assert LINK.format("https://manual.casino.example/progressivo/") + "Manual</a>" in page.content.decode()


def test_the_built_manual_answers_at_manual(built_manual):
    with override_settings(MANUAL_ROOT=built_manual):
        client = Client()  # a new client builds its middleware with the settings above
        home = client.get("/manual/")
        guide = client.get("/manual/floor-managers/")
        picture = client.get("/manual/img/floor/desk.png")
        bare = client.get("/manual/floor-managers")
    assert (home.status_code, home["Content-Type"]) == (200, 'text/html; charset="utf-8"')
    assert b"<title>Progressivo manual</title>" in b"".join(home)
    assert guide.status_code == 200
    assert b"A floor manager's guide" in b"".join(guide)
    assert (picture.status_code, picture["Content-Type"]) == (200, "image/png")
    assert b"".join(picture) == (ROOT / "docs/img/floor/desk.png").read_bytes()
    # Relative to /manual/floor-managers: the browser goes to /manual/floor-managers/.
    assert (bare.status_code, bare["Location"]) == (302, "floor-managers/")


def test_no_manual_is_served_before_it_is_built(tmp_path, manager):
    with override_settings(MANUAL_ROOT=tmp_path / "not-built"):
        client = Client()
        client.force_login(manager)
        assert client.get("/manual/").status_code == 404
        # The static files are served as before.
        assert client.get("/static/workspace/workspace.css").status_code == 200
