from __future__ import annotations

from django.urls import path

from signage.views import signage_screen

urlpatterns = [
    path("<slug:screen>/", signage_screen, name="signage-screen"),
]
