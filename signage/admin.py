"""Sign themes: a floor manager picks a progressive's preset, title, colours and logo; connected signs
redraw the card once the change is committed (``signage.services``)."""

from __future__ import annotations

import base64

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from signage.models import SignTheme
from signage.services import sign_theme_delete, sign_theme_save

LOGO_MAX_BYTES = 256 * 1024
LOGO_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


class SignThemeForm(forms.ModelForm):
    logo_upload = forms.ImageField(
        label=_("logo"),
        required=False,
        help_text=_("PNG, JPEG or WebP, at most 256 KB; shown beside the title."),
    )
    logo_clear = forms.BooleanField(label=_("remove the logo"), required=False)

    class Meta:
        model = SignTheme
        fields = ("progressive", "preset", "title", "background", "accent")
        widgets = {
            "preset": forms.RadioSelect,
            # Plain text, not a colour picker: a picker cannot be left empty, and empty means the preset's.
            "background": forms.TextInput(attrs={"placeholder": "#rrggbb", "size": 8}),
            "accent": forms.TextInput(attrs={"placeholder": "#rrggbb", "size": 8}),
        }

    def clean_logo_upload(self):
        upload = self.cleaned_data.get("logo_upload")
        if upload is None:
            return None
        if upload.size > LOGO_MAX_BYTES:
            raise forms.ValidationError(_("The logo is larger than 256 KB."), code="logo_too_large")
        kind = getattr(upload, "image", None) and upload.image.format
        if kind not in LOGO_TYPES:
            raise forms.ValidationError(_("The logo must be a PNG, JPEG or WebP image."), code="logo_type")
        upload.seek(0)
        return f"data:{LOGO_TYPES[kind]};base64,{base64.b64encode(upload.read()).decode()}"

    def save(self, commit: bool = True) -> SignTheme:
        theme = super().save(commit=False)
        if self.cleaned_data.get("logo_clear"):
            theme.logo = ""
        elif self.cleaned_data.get("logo_upload"):
            theme.logo = self.cleaned_data["logo_upload"]
        return theme


@admin.register(SignTheme)
class SignThemeAdmin(admin.ModelAdmin):
    form = SignThemeForm
    list_display = ("progressive", "preset", "title", "logo_shown", "updated_at")
    list_select_related = ("progressive",)
    readonly_fields = ("logo_shown",)
    fields = (
        "progressive",
        "preset",
        "title",
        "background",
        "accent",
        "logo_shown",
        "logo_upload",
        "logo_clear",
    )

    @admin.display(description=_("logo"))
    def logo_shown(self, theme: SignTheme) -> str:
        if not theme.logo:
            return "—"
        return format_html('<img src="{}" alt="" style="max-height:48px">', theme.logo)

    def save_model(self, request: HttpRequest, obj: SignTheme, form, change: bool) -> None:
        sign_theme_save(obj)

    def delete_model(self, request: HttpRequest, obj: SignTheme) -> None:
        sign_theme_delete(obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[SignTheme]) -> None:
        for theme in queryset:
            sign_theme_delete(theme)
