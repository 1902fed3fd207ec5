"""Importing the inventory: every row checked first; one bad row and nothing is written."""

from __future__ import annotations

from dataclasses import dataclass, field

import tablib
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from workspace.inventory.resources import SlotMachineResource, cell_escape

# A venue's floor in one file with room to spare (the casino's two venues have some hundreds of machines):
# every row is checked, then imported, in one request; 20,000 rows held a request for 81 s and 170 MiB.
MAX_ROWS = 1_000


@dataclass
class RowProblem:
    line: int  # line of the file, the header being line 1
    asset: str
    reasons: list[str]


@dataclass
class ImportReport:
    rows: int = 0
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    problems: list[RowProblem] = field(default_factory=list)
    imported: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems


class InventoryFileError(ValueError):
    """The file is not a readable inventory CSV (the whole file is refused)."""


def _dataset(content: bytes) -> tablib.Dataset:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InventoryFileError(_("The file is not UTF-8 text.")) from None
    try:
        dataset = tablib.Dataset().load(text, format="csv")
    except Exception as error:
        raise InventoryFileError(_("The file is not a CSV table: %(error)s") % {"error": error}) from None
    if "asset_number" not in (dataset.headers or []):
        raise InventoryFileError(_("The first line must name the columns, asset_number among them."))
    if len(dataset) > MAX_ROWS:
        raise InventoryFileError(_("At most %(rows)d machines per file.") % {"rows": MAX_ROWS})
    return dataset


def _duplicates(dataset: tablib.Dataset) -> list[RowProblem]:
    """Each asset once per file: a second row for it silently won over the first."""
    first: dict[str, int] = {}
    problems = []
    for index, asset in enumerate(dataset["asset_number"] if len(dataset) else [], start=2):
        key = (asset or "").strip()
        if key in first:
            reason = _("asset_number: %(asset)s is already on line %(line)d.") % {
                "asset": key,
                "line": first[key],
            }
            problems.append(RowProblem(line=index, asset=key, reasons=[reason]))
        else:
            first[key] = index
    return problems


def inventory_import(content: bytes, *, dry_run: bool) -> ImportReport:
    """Checks (dry run) or imports the CSV; with any bad row nothing is imported, in either mode."""
    dataset = _dataset(content)
    duplicates = _duplicates(dataset)
    if duplicates:
        return ImportReport(rows=len(dataset), problems=duplicates)
    resource = SlotMachineResource()
    with transaction.atomic():
        result = resource.import_data(dataset, dry_run=True, use_transactions=False)
        report = _report(result, dataset)
        transaction.set_rollback(True)
    if dry_run or not report.ok:
        return report
    with transaction.atomic():
        result = resource.import_data(dataset, dry_run=False, use_transactions=False, raise_errors=False)
        report = _report(result, dataset)
        if not report.ok:  # the data changed between the check and now
            transaction.set_rollback(True)
            return report
    report.imported = True
    return report


def _report(result, dataset: tablib.Dataset) -> ImportReport:
    report = ImportReport(rows=len(dataset))
    assets = dataset["asset_number"] if len(dataset) else []
    for number, errors in result.row_errors():
        report.problems.append(
            RowProblem(line=number + 1, asset=assets[number - 1], reasons=[_reason(e.error) for e in errors])
        )
    for invalid in result.invalid_rows:
        reasons = [f"{name}: {' '.join(messages)}" for name, messages in invalid.error_dict.items()]
        report.problems.append(
            RowProblem(line=invalid.number + 1, asset=assets[invalid.number - 1], reasons=reasons)
        )
    report.problems.sort(key=lambda problem: problem.line)
    totals = result.totals
    report.new, report.updated, report.unchanged = totals["new"], totals["update"], totals["skip"]
    return report


def inventory_export() -> str:
    """The inventory as CSV, every cell a spreadsheet would run as a formula escaped (cell_escape)."""
    dataset = SlotMachineResource().export()
    escaped = tablib.Dataset(headers=dataset.headers)
    for row in dataset:
        escaped.append([cell_escape(value) for value in row])
    return escaped.csv


def _reason(error: Exception) -> str:
    if isinstance(error, ValidationError) and hasattr(error, "message_dict"):
        return " ".join(f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items())
    return str(error)
