"""A euro amount in words, as a slip and a cheque write it (Italian and English), from integer cents."""

from __future__ import annotations

from num2words import num2words


def amount_in_words(cents: int, language: str) -> str:
    """'cinquemila euro e sessanta centesimi' / 'five thousand euros and sixty cents' from 500060."""
    if cents < 0:
        raise ValueError("an amount in words is never negative")
    euros, rest = divmod(cents, 100)
    if language == "it":
        # One is "un" before a noun (un euro, un centesimo), not the counting word "uno".
        words = "un euro" if euros == 1 else f"{num2words(euros, lang='it')} euro"
        if rest == 1:
            return f"{words} e un centesimo"
        return f"{words} e {num2words(rest, lang='it')} centesimi" if rest else words
    words = f"{num2words(euros, lang='en')} {'euro' if euros == 1 else 'euros'}"
    if rest:
        words += f" and {num2words(rest, lang='en')} {'cent' if rest == 1 else 'cents'}"
    return words
