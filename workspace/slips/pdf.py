"""The jackpot slip as a PDF (fpdf2): bilingual (Italian / English) labels, so one slip serves the winner,
the cage and the auditors. A5 for the office printer, 80 mm for the cage's roll printer."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from fpdf import FPDF

# (page width, page height, margin, body font size) in millimetres and points. The roll's height is the
# content's (``ROLL``): it is laid out once on a long strip to measure, then on a strip that fits.
ROLL = "80mm"
_FORMATS = {"a5": (148.0, 210.0, 12.0, 11), ROLL: (80.0, 1000.0, 4.0, 8.5)}


@dataclass(frozen=True)
class SlipFacts:
    venue: str
    machine: str
    location: str
    level: str
    amount: str  # "€ 5,000.60"
    words_it: str
    words_en: str
    at: str
    number: str
    verifiers: list[str]
    payer: str
    paid_at: str
    winner: str = ""  # name and identity document, where recorded
    prize: str = ""  # a part's prize: its hit number and total
    copy: str = ""  # a reprint's mark: COPIA / COPY n., who and when


def _pdf(variant: str, height: float | None = None) -> tuple[FPDF, float, int]:
    width, default_height, margin, size = _FORMATS[variant]
    height = height or default_height
    with warnings.catch_warnings():
        # fpdf2 warns that it corrected A5's dimensions in 2.8.5; we pass explicit millimetres anyway.
        warnings.simplefilter("ignore", UserWarning)
        pdf = FPDF(unit="mm", format=(width, height))
    # Windows-1252 has the euro sign and Italian accents: the built-in Helvetica needs no font file.
    pdf.core_fonts_encoding = "windows-1252"
    pdf.set_margins(margin, margin, margin)
    pdf.set_auto_page_break(True, margin)
    pdf.set_creator("Progressivo")
    pdf.add_page()
    return pdf, width - 2 * margin, size


def _line(pdf: FPDF, width: float, size: float, label: str, value: str) -> None:
    pdf.set_font("helvetica", size=size * 0.8)
    pdf.multi_cell(width, size * 0.45, label, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", "B", size)
    pdf.multi_cell(width, size * 0.55, value, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(size * 0.15)


def _signature(pdf: FPDF, width: float, size: float, role: str, name: str) -> None:
    pdf.ln(size * 0.9)
    y = pdf.get_y()
    pdf.line(pdf.l_margin, y, pdf.l_margin + width, y)
    pdf.set_font("helvetica", size=size * 0.8)
    pdf.multi_cell(width, size * 0.45, f"{role}: {name}", new_x="LMARGIN", new_y="NEXT")


def slip_pdf(facts: SlipFacts, variant: str) -> bytes:
    pdf, _width, _size = _pdf(variant)
    _slip_write(pdf, facts, variant)
    if variant == ROLL:  # a strip as long as its content
        height = pdf.get_y() + pdf.b_margin + 1
        pdf, _width, _size = _pdf(variant, height)
        pdf.set_auto_page_break(False)  # measured: it fits
        _slip_write(pdf, facts, variant)
    return bytes(pdf.output())


def _slip_write(pdf: FPDF, facts: SlipFacts, variant: str) -> None:
    _width, _height, margin, size = _FORMATS[variant]
    width = pdf.w - 2 * margin
    pdf.set_font("helvetica", "B", size * 1.4)
    pdf.multi_cell(width, size * 0.7, facts.venue, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", "B", size * 1.1)
    pdf.multi_cell(
        width, size * 0.6, "Ricevuta jackpot / Jackpot slip", align="C", new_x="LMARGIN", new_y="NEXT"
    )
    if facts.copy:
        pdf.set_font("helvetica", "B", size * 1.1)
        pdf.multi_cell(width, size * 0.6, facts.copy, align="C", border=1, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(size * 0.4)
    _line(pdf, width, size, "Vincita n. / Hit number", facts.number)
    _line(pdf, width, size, "Data e ora / Time", facts.at)
    _line(pdf, width, size, "Macchina / Machine", f"{facts.machine} - {facts.location}")
    _line(pdf, width, size, "Livello / Level", facts.level)
    if facts.prize:
        _line(pdf, width, size, "Quota del premio / Part of the prize", facts.prize)
    _line(pdf, width, size * 1.5, "Importo / Amount", facts.amount)
    if facts.words_it:
        _line(pdf, width, size, "In lettere", facts.words_it)
        _line(pdf, width, size, "In words", facts.words_en)
    _line(pdf, width, size, "Pagato il / Paid at", facts.paid_at)
    if facts.winner:
        _line(pdf, width, size, "Vincitore / Winner", facts.winner)
    for index, name in enumerate(facts.verifiers, start=1):
        _signature(pdf, width, size, f"Verificato da / Verified by ({index})", name)
    _signature(pdf, width, size, "Pagato da / Paid by", facts.payer)
    if facts.winner:
        _signature(pdf, width, size, "Firma del vincitore / Winner's signature", facts.winner.split(" - ")[0])
