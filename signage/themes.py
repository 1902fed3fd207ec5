"""The presets a progressive's sign theme starts from, and the theme as a sign receives it."""

from __future__ import annotations

from signage.models import SignTheme

# Per preset: the card's background (light and deep), the accent (light, main, dark) and the text.
PRESETS: dict[str, dict[str, str]] = {
    SignTheme.Preset.CLASSIC: {
        "background": "#5c0a12",
        "background_deep": "#2a0508",
        "accent_light": "#f6e3a1",
        "accent": "#d9b45a",
        "accent_dark": "#8a6420",
        "text": "#fbf3dc",
    },
    SignTheme.Preset.ICE: {
        "background": "#123a6b",
        "background_deep": "#06152b",
        "accent_light": "#f2f6fb",
        "accent": "#b9c6d6",
        "accent_dark": "#5d7491",
        "text": "#eef4fb",
    },
    SignTheme.Preset.EMERALD: {
        "background": "#0d5c45",
        "background_deep": "#03261c",
        "accent_light": "#f5e7b8",
        "accent": "#d4af37",
        "accent_dark": "#7d6418",
        "text": "#f4f8f1",
    },
}


def theme_public(theme: SignTheme | None, progressive_name: str) -> dict:
    """What a sign needs to draw a progressive's card: title, colours and logo (a data: URL or None).
    A progressive without a theme is drawn in the classic preset under its own name."""
    if theme is None:
        return {
            "preset": SignTheme.Preset.CLASSIC.value,
            "title": progressive_name,
            "colors": dict(PRESETS["classic"]),
            "logo": None,
        }
    colors = dict(PRESETS[theme.preset])
    if theme.background:
        colors["background"] = theme.background.lower()
    if theme.accent:
        colors["accent"] = theme.accent.lower()
    return {
        "preset": theme.preset,
        "title": theme.title or progressive_name,
        "colors": colors,
        "logo": theme.logo or None,
    }
