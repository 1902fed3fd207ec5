"""The day close as CSV (one row per machine, cents) and as a PDF for the file."""

from __future__ import annotations

import csv
import io
from datetime import date

from fpdf import FPDF

from common.money import cents_eur_grouped
from floor.models import Venue
from workspace.dayclose.selectors import CHECKS, Line, lines_total
from workspace.models import DayClose

HEADER = [
    "machine",
    "coin_in_meter_cents",
    "wagers_cents",
    "coin_in_difference_cents",
    "coin_out_meter_cents",
    "wins_cents",
    "coin_out_difference_cents",
    "handpay_meter_cents",
    "hits_cents",
    "handpay_difference_cents",
    "flagged",
]


def _row(line: Line) -> list:
    return [
        line.asset,
        line.coin_in_meter,
        line.wagers,
        line.difference("coin_in"),
        line.coin_out_meter,
        line.wins,
        line.difference("coin_out"),
        line.handpay_meter,
        line.hits,
        line.difference("handpay"),
        " ".join(line.flagged),
    ]


def dayclose_csv(lines: list[Line]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    writer.writerows(_row(line) for line in lines)
    return out.getvalue()


def _signature(closed: DayClose | None) -> str:
    if closed is None:
        return "Non firmato / Not signed off"
    who = closed.signed_by.get_full_name() or closed.signed_by.get_username()
    return f"Firmato da / Signed off by {who}, {closed.signed_at:%d/%m/%Y %H:%M} UTC"


# Millimetres, 277 in all (A4 landscape inside its margins); the flagged meters' names fit their column.
_WIDTHS = (28, 26, 26, 20, 26, 26, 20, 24, 24, 20, 37)
# Each heading in Italian over English: the day close is filed in Italy and read by auditors of both.
_TITLES = (
    ("Macchina", "Machine"),
    ("Incasso", "Coin in"),
    ("Puntate", "Wagers"),
    ("Diff.", "Diff."),
    ("Pagato", "Coin out"),
    ("Vincite", "Wins"),
    ("Diff.", "Diff."),
    ("Pag. a mano", "Handpay"),
    ("Jackpot", "Hits"),
    ("Diff.", "Diff."),
    ("Segnalati", "Flagged"),
)
_ROW_MM = 4.2


def _idle(line: Line) -> bool:
    """Nothing metered, played or hit, nothing flagged: a line the PDF counts instead of printing."""
    return not line.flagged and not any(
        (getattr(line, f"{meter}_meter"), getattr(line, other)) != (0, 0) for meter, other in CHECKS
    )


def _pdf_cells(line: Line) -> list[str]:
    cells = [line.asset]
    for meter, other in CHECKS:
        cells += [
            cents_eur_grouped(getattr(line, f"{meter}_meter")),
            cents_eur_grouped(getattr(line, other)),
            cents_eur_grouped(line.difference(meter)),
        ]
    return [*cells, " ".join(line.flagged)]


def _pdf_headings(pdf: FPDF) -> None:
    """The table's two heading rows, Italian then English, on every page."""
    for row, style in ((0, "B"), (1, "I")):
        pdf.set_font("helvetica", style, 7.5)
        for width, titles in zip(_WIDTHS, _TITLES, strict=True):
            pdf.cell(width, _ROW_MM, titles[row], border="LR" + ("T" if row == 0 else "B"))
        pdf.ln()


def dayclose_pdf(
    venue: Venue, day: date, lines: list[Line], closed: DayClose | None, tolerance: int
) -> bytes:
    pdf = FPDF(orientation="landscape", unit="mm", format="A4")
    pdf.core_fonts_encoding = "windows-1252"  # the euro sign and Italian accents in the built-in font
    pdf.set_creator("Progressivo")
    pdf.add_page()
    pdf.set_font("helvetica", "B", 14)
    title = f"{venue.name} - Chiusura giornata / Day close {day:%d/%m/%Y}"
    pdf.cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=9)
    subtitle = f"Tolleranza / Tolerance: € {cents_eur_grouped(tolerance)}. {_signature(closed)}"
    pdf.cell(0, 6, subtitle, new_x="LMARGIN", new_y="NEXT")
    _pdf_headings(pdf)
    active = [line for line in lines if not _idle(line)]
    for line in active:
        if pdf.will_page_break(_ROW_MM):
            pdf.add_page()
            _pdf_headings(pdf)
        cells = _pdf_cells(line)
        for index, (width, text) in enumerate(zip(_WIDTHS, cells, strict=True)):
            last = index == len(cells) - 1
            pdf.set_font("helvetica", size=6.5 if last else 7.5)
            pdf.cell(width, _ROW_MM, text, border=1, align="L" if index == 0 or last else "R")
        pdf.ln()
    pdf.set_font("helvetica", "B", 8)
    flagged = f"Macchine segnalate / Machines flagged: {lines_total(lines).flagged}"
    pdf.cell(0, 6, flagged, new_x="LMARGIN", new_y="NEXT")
    idle = len(lines) - len(active)
    pdf.cell(0, 6, f"Macchine senza attività, non elencate / Machines without activity, not listed: {idle}")
    return bytes(pdf.output())
