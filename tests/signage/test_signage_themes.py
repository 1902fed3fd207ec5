"""A theme chosen in the admin reaches the connected signs of its progressive without a reload: the
admin's save commits, then the sign receives a ``theme`` frame with the title, colours and logo."""

from __future__ import annotations

import base64
import io

from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from signage.models import SignTheme
from signage.themes import PRESETS
from tests.signage.helpers import SOCKET_TESTS, SignSetup, receive_until
from tests.signage.test_signage_consumer import open_sign

pytestmark = SOCKET_TESTS

EMERALD = {
    "background": "#0d5c45",
    "background_deep": "#03261c",
    "accent_light": "#f5e7b8",
    "accent": "#d4af37",
    "accent_dark": "#7d6418",
    "text": "#f4f8f1",
}


async def frames_until_quiet(sign) -> list[dict]:
    frames = []
    while not await sign.receive_nothing(timeout=0.3):
        frames.append(await sign.receive_json_from(timeout=1))
    return frames


def admin_client() -> Client:
    client = Client()
    user = get_user_model().objects.create_superuser("floor", "floor@example.com", "pw-not-used-0123")
    client.force_login(user)
    return client


def png_bytes() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 2), (212, 175, 55)).save(out, format="PNG")
    return out.getvalue()


def theme_post(client: Client, url: str, **fields) -> tuple[int, str]:
    response = client.post(url, fields)
    return response.status_code, response.content.decode()


async def theme_received(sign) -> dict:
    """The next theme frame, without its ``n`` (a heartbeat may come first on a slow machine)."""
    frames = await receive_until(sign, "theme", timeout=10)
    assert {frame["type"] for frame in frames[:-1]} <= {"heartbeat"}
    return {name: value for name, value in frames[-1].items() if name != "n"}


async def test_a_theme_saved_in_the_admin_reaches_the_connected_sign(sign_setup: SignSetup) -> None:
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    client = await database_sync_to_async(admin_client)()
    logo = png_bytes()
    status, _ = await database_sync_to_async(theme_post)(
        client,
        "/admin/signage/signtheme/add/",
        progressive=sign_setup.progressive.id,
        preset="emerald",
        title="Diamante",
        background="",
        accent="#00AAFF",
        logo_upload=SimpleUploadedFile("logo.png", logo, content_type="image/png"),
    )
    assert status == 302
    data_url = "data:image/png;base64," + base64.b64encode(logo).decode()
    assert await theme_received(sign) == {
        "type": "theme",
        "jackpot": sign_setup.progressive.id,
        "theme": {
            "preset": "emerald",
            "title": "Diamante",
            "colors": {**EMERALD, "accent": "#00aaff"},
            "logo": data_url,
        },
    }

    # Removed: back to the classic red and gold under the progressive's own name, on the sign too.
    theme = await database_sync_to_async(SignTheme.objects.get)(progressive=sign_setup.progressive)
    status, _ = await database_sync_to_async(theme_post)(
        client, f"/admin/signage/signtheme/{theme.id}/delete/", post="yes"
    )
    assert status == 302
    assert await theme_received(sign) == {
        "type": "theme",
        "jackpot": sign_setup.progressive.id,
        "theme": {"preset": "classic", "title": "Diamond Vault", "colors": PRESETS["classic"], "logo": None},
    }
    await sign.disconnect()


async def test_a_bad_colour_or_logo_is_refused_with_a_sentence_and_changes_nothing(
    sign_setup: SignSetup,
) -> None:
    sign = await open_sign(sign_setup)
    await sign.receive_json_from(timeout=3)
    client = await database_sync_to_async(admin_client)()
    cases = [
        ({"accent": "#12345"}, "A colour as #rrggbb, e.g. #d9b45a."),
        (
            {"logo_upload": SimpleUploadedFile("logo.png", b"not an image", content_type="image/png")},
            "Upload a valid image.",
        ),
        (
            {
                "logo_upload": SimpleUploadedFile(
                    "big.png", png_bytes() + b"\0" * 262_144, content_type="image/png"
                )
            },
            "The logo is larger than 256 KB.",
        ),
    ]
    for fields, sentence in cases:
        status, html = await database_sync_to_async(theme_post)(
            client,
            "/admin/signage/signtheme/add/",
            progressive=sign_setup.progressive.id,
            preset="ice",
            **fields,
        )
        assert status == 200
        assert sentence in html
    assert await database_sync_to_async(SignTheme.objects.count)() == 0
    assert {frame["type"] for frame in await frames_until_quiet(sign)} <= {"heartbeat"}
    await sign.disconnect()
