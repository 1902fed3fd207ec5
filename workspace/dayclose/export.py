"""The day close as CSV (one row per machine, cents) and as a PDF for the file; the progressive register
as CSV (one row per level, millicents) and as a PDF."""

from __future__ import annotations

import csv
import io
from datetime import date

from fpdf import FPDF

from common.money import cents_eur_grouped, mc_eur_grouped
from floor.models import Venue
from workspace.dayclose.register import RegisterRow, register_total
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


# The progressive register's CSV: the columns and their order are fixed (docs/day-register.md); money is
# integer millicents, exact; lists of hit numbers are separated by spaces.
REGISTER_HEADER = [
    "venue",
    "business_day",
    "level_id",
    "progressive",
    "level",
    "state",
    "shared_with",
    "opening_mc",
    "contributions_mc",
    "reset_values_mc",
    "topups_mc",
    "awards_mc",
    "voids_mc",
    "corrections_mc",
    "transfers_mc",
    "closing_mc",
    "difference_mc",
    "holds",
    "signs_mc",
    "current_mc",
    "reserve_mc",
    "overflow_mc",
    "unpaid_count",
    "unpaid_mc",
    "award_hit_numbers",
    "void_hit_numbers",
    "unpaid_hit_numbers",
]


def register_csv(venue: Venue, day: date, rows: list[RegisterRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(REGISTER_HEADER)
    for row in rows:
        writer.writerow(
            [
                venue.code,
                day.isoformat(),
                row.level_id,
                row.progressive,
                row.level,
                row.state,
                " ".join(row.shared_with),
                *(getattr(row, name) for name in REGISTER_HEADER[7:17]),
                "yes" if row.holds else "no",
                *(getattr(row, name) for name in REGISTER_HEADER[18:24]),
                " ".join(row.award_refs),
                " ".join(row.void_refs),
                " ".join(row.unpaid_refs),
            ]
        )
    return out.getvalue()


# The PDF's money columns (euros, rounded down to the cent) with their Italian / English headings; the
# level's name first, the identity's difference (millicents, exact) after the closing amount.
_REGISTER_MONEY = (
    ("opening_mc", "Apertura", "Opening"),
    ("contributions_mc", "Contributi", "Contrib."),
    ("reset_values_mc", "Valori reset", "Reset values"),
    ("topups_mc", "Integrazioni", "Top-ups"),
    ("awards_mc", "Vincite", "Awards"),
    ("voids_mc", "Annulli", "Voids"),
    ("corrections_mc", "Rettifiche", "Corrections"),
    ("transfers_mc", "Trasferimenti", "Transfers"),
    ("closing_mc", "Chiusura", "Closing"),
)
_REGISTER_AFTER = (
    ("signs_mc", "Insegne", "Signs"),
    ("reserve_mc", "Riserva", "Reserve"),
    ("overflow_mc", "Eccedenza", "Overflow"),
    ("unpaid_mc", "Non pagate", "Unpaid"),
)
_REGISTER_LEVEL_MM = 37  # 37 + 13 x 17 + 19 = 277 mm, A4 landscape inside its margins
_REGISTER_MONEY_MM = 17
_REGISTER_DIFF_MM = 19


def _register_headings(pdf: FPDF) -> None:
    for row, style in ((0, "B"), (1, "I")):
        pdf.set_font("helvetica", style, 6.5)
        border = "LR" + ("T" if row == 0 else "B")
        pdf.cell(_REGISTER_LEVEL_MM, _ROW_MM, ("Livello", "Level")[row], border=border)
        for _name, *titles in _REGISTER_MONEY:
            pdf.cell(_REGISTER_MONEY_MM, _ROW_MM, titles[row], border=border)
        pdf.cell(_REGISTER_DIFF_MM, _ROW_MM, ("Diff. (mc)", "Diff. (mc)")[row], border=border)
        for _name, *titles in _REGISTER_AFTER:
            pdf.cell(_REGISTER_MONEY_MM, _ROW_MM, titles[row], border=border)
        pdf.ln()


def _register_row(pdf: FPDF, row: RegisterRow) -> None:
    pdf.set_font("helvetica", size=7)
    name = f"{row.progressive} {row.level}"
    while pdf.get_string_width(name) > _REGISTER_LEVEL_MM - 2 and len(name) > 1:
        name = name[:-2] + "…"
    pdf.cell(_REGISTER_LEVEL_MM, _ROW_MM, name, border=1)
    for field_name, *_titles in _REGISTER_MONEY:
        pdf.cell(_REGISTER_MONEY_MM, _ROW_MM, mc_eur_grouped(getattr(row, field_name)), border=1, align="R")
    if not row.holds:
        pdf.set_text_color(200, 0, 0)
    pdf.cell(_REGISTER_DIFF_MM, _ROW_MM, f"{row.difference_mc:,}".replace(",", "."), border=1, align="R")
    pdf.set_text_color(0, 0, 0)
    for field_name, *_titles in _REGISTER_AFTER:
        pdf.cell(_REGISTER_MONEY_MM, _ROW_MM, mc_eur_grouped(getattr(row, field_name)), border=1, align="R")
    pdf.ln()
    details = [
        ("Vincite / Awards", row.award_refs),
        ("Annullate / Voided", row.void_refs),
        ("Non pagate / Unpaid", row.unpaid_refs),
    ]
    said = "; ".join(f"{label}: {' '.join(refs)}" for label, refs in details if refs)
    state = f"{row.state}" + (f"; anche / also at {' '.join(row.shared_with)}" if row.shared_with else "")
    pdf.set_font("helvetica", "I", 6.5)
    # A busy day's hit numbers wrap onto more lines rather than run off the page.
    text = f"{state}{'; ' + said if said else ''}"
    pdf.multi_cell(0, _ROW_MM, text, border="B", align="L", new_x="LMARGIN", new_y="NEXT")


def register_pdf(venue: Venue, day: date, rows: list[RegisterRow], closed: DayClose | None) -> bytes:
    pdf = FPDF(orientation="landscape", unit="mm", format="A4")
    pdf.core_fonts_encoding = "windows-1252"
    pdf.set_creator("Progressivo")
    pdf.add_page()
    pdf.set_font("helvetica", "B", 14)
    title = f"{venue.name} - Registro progressivi / Progressive register {day:%d/%m/%Y}"
    pdf.cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=8)
    pdf.multi_cell(
        0,
        4,
        "Euro arrotondati per difetto al centesimo; l'identità apertura + contributi + valori reset + "
        "integrazioni - vincite + annulli + rettifiche + trasferimenti = chiusura è verificata al "
        "millesimo di centesimo (Diff., in millesimi di centesimo) / Euros rounded down to the cent; the "
        "identity is checked to the millicent (Diff., millicents). " + _signature(closed),
        align="L",
        new_x="LMARGIN",
        new_y="NEXT",
    )
    _register_headings(pdf)
    for row in rows:
        if pdf.will_page_break(2 * _ROW_MM):
            pdf.add_page()
            _register_headings(pdf)
        _register_row(pdf, row)
    totals = register_total(rows)
    pdf.set_font("helvetica", "B", 8)
    if totals.unheld:
        verdict = f"Identità non verificata / Identity does not hold: {totals.unheld} / {len(rows)}"
    else:
        verdict = f"Identità verificata / Identity holds: {len(rows)} / {len(rows)}"
    pdf.cell(0, 6, verdict, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())
