"""The inventory page: export, then upload → preview (dry run) → import."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from floor.access import IMPORT_INVENTORY, staff_page
from floor.models import Bank, Room
from slots.models import SlotMachine
from workspace.inventory.selectors import inventory_filter_read, inventory_machines
from workspace.inventory.services import InventoryFileError, inventory_export, inventory_import
from workspace.shell import venue_current

# 1,000 rows (MAX_ROWS) of an exported inventory are about 120 KiB.
MAX_UPLOAD_BYTES = 512 * 1024


class InventoryUploadForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Inventory CSV"))
    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)


@staff_page(IMPORT_INVENTORY)
def inventory_view(request: HttpRequest) -> HttpResponse:
    if request.method == "GET" and request.GET.get("format") == "csv":
        response = HttpResponse(inventory_export(), content_type="text/csv; charset=utf-8")
        name = f"machines-{timezone.localdate()}.csv"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
    form = InventoryUploadForm(request.POST or None, request.FILES or None)
    report = None
    status = 200
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            form.add_error("file", _("The file is larger than 512 KiB."))
        else:
            try:
                report = inventory_import(upload.read(), dry_run=not form.cleaned_data["confirm"])
            except InventoryFileError as error:
                form.add_error("file", str(error))
        if report is not None and not report.ok:
            status = 400
    if form.errors:
        status = 400
    context = {"title": _("Machine inventory"), "form": form, "report": report, **_machine_list(request)}
    return render(request, "workspace/inventory.html", context, status=status)


def _machine_list(request: HttpRequest) -> dict:
    """The venue's machines as the page lists them, with the filter's choices."""
    venue = venue_current(request)
    if venue is None:
        return {"machines": None}
    chosen = inventory_filter_read(venue, request.GET)
    return {
        "machines": inventory_machines(venue, chosen),
        "chosen": chosen,
        "rooms": Room.objects.filter(venue=venue).order_by("number"),
        "banks": Bank.objects.filter(room__venue=venue)
        .select_related("room")
        .order_by("room__number", "code"),
        "statuses": SlotMachine.Status.choices,
        "sort_columns": [
            ("asset", _("Machine")),
            ("room", _("Room")),
            ("bank", _("Bank")),
            ("game", _("Game")),
            ("manufacturer", _("Manufacturer")),
            ("denomination", _("Denomination")),
            ("status", _("Status")),
        ],
    }
