"""One parser of instants (common.times): the groups-built datetime agrees with the plain way, rewriting the
text for ``fromisoformat``, on every text of RFC 3339's grammar and around it: the same instant, or the same
refusal with the same sentence."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.times import TimeRejected, TimeWindow, instant_parse

WINDOW = TimeWindow(
    earliest=datetime(1, 1, 1, tzinfo=UTC) + timedelta(days=2),
    latest=datetime(9999, 12, 31, tzinfo=UTC) - timedelta(days=2),
    max_age_seconds=1,
    max_future_seconds=1,
)
_REFERENCE_GRAMMAR = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})"
)
_FRACTION = re.compile(r"(\.\d{6})\d+")


def reference_parse(value: str) -> datetime:
    """The parser as it was written first: the model the fast one must match."""
    if _REFERENCE_GRAMMAR.fullmatch(value) is None or not value.isascii():
        raise TimeRejected("invalid_at")
    text = _FRACTION.sub(r"\1", value.upper().replace(" ", "T"))
    try:
        # fromisoformat takes an offset's minutes up to 99 (+05:60 is +06:00); RFC 3339 says 00-59.
        if text[-6] in "+-" and int(text[-2:]) > 59:
            raise ValueError(text)
        instant = datetime.fromisoformat(text)
    except ValueError:
        raise TimeRejected("invalid_at", f"`at` is not a valid date-time: {value!r}.") from None
    offset = instant.utcoffset()
    if offset is None or not -timedelta(hours=14) <= offset <= timedelta(hours=14):
        raise TimeRejected("invalid_at", f"The offset of `at` is outside ±14:00: {value!r}.")
    if not WINDOW.earliest <= instant <= WINDOW.latest:
        raise TimeRejected("at_too_old" if instant < WINDOW.earliest else "at_in_future")
    return instant


def _outcome(parse, value: str) -> tuple[str, object]:
    try:
        instant = parse(value, WINDOW) if parse is instant_parse else parse(value)
    except TimeRejected as rejection:
        return ("refused", rejection.code if rejection.code != "invalid_at" else rejection.detail)
    return ("instant", (instant, instant.utcoffset(), instant.astimezone(UTC).isoformat()))


def _digits(count: int, top: int = 99) -> st.SearchStrategy[str]:
    return st.integers(0, min(top, 10**count - 1)).map(lambda n: f"{n:0{count}d}")


_texts = st.builds(
    lambda y, mo, d, sep, h, mi, s, frac, zone: f"{y}-{mo}-{d}{sep}{h}:{mi}:{s}{frac}{zone}",
    _digits(4, 9999),
    _digits(2, 13),
    _digits(2, 32),
    st.sampled_from("Tt "),
    _digits(2, 25),
    _digits(2, 61),
    _digits(2, 62),
    st.one_of(
        st.just(""), st.integers(1, 12).flatmap(lambda n: _digits(n, 10**n - 1).map(lambda d: "." + d))
    ),
    st.one_of(
        st.sampled_from(["Z", "z"]),
        st.builds(lambda sign, h, m: f"{sign}{h}:{m}", st.sampled_from("+-"), _digits(2, 25), _digits(2, 61)),
    ),
)


@settings(max_examples=1500, deadline=None)
@given(_texts)
def test_the_fast_parser_agrees_with_the_reference(value):
    assert _outcome(instant_parse, value) == _outcome(reference_parse, value)


@pytest.mark.parametrize(
    "value",
    [
        "2026-11-21T18:03:05.120Z",
        "2026-11-21t18:03:05z",
        "2026-11-21 18:03:05.1234567891+01:00",
        "2026-11-21T18:03:05-00:00",
        "2026-11-21T18:03:05+14:00",
        "2026-11-21T18:03:05-14:00",
        "2026-11-21T18:03:05+14:01",
        "2026-11-21T18:03:05+24:00",
        "2026-11-21T18:03:05+05:60",
        "2026-02-29T00:00:00Z",
        "2028-02-29T00:00:00Z",
        "2026-11-21T23:59:60Z",
        "0000-01-01T00:00:00Z",
        "2026-11-21T18:03:05",
        "2026-11-21T18:03:05.Z",
        "\uff12\uff10\uff12\uff16-11-21T18:03:05Z",  # full-width digits
        "2026-11-21T18:03:05Z ",
    ],
)
def test_the_edges_agree(value):
    assert _outcome(instant_parse, value) == _outcome(reference_parse, value)


def test_the_fraction_is_cut_to_microseconds_not_rounded():
    assert instant_parse("2026-11-21T18:03:05.1234569Z", WINDOW) == datetime(
        2026, 11, 21, 18, 3, 5, 123456, tzinfo=UTC
    )


def test_an_offset_of_sixty_minutes_is_refused():
    """RFC 3339 section 5.6: time-minute is 00-59 in an offset too; fromisoformat read +13:60 as +14:00."""
    with pytest.raises(TimeRejected) as refused:
        instant_parse("2026-11-21T18:03:05+13:60", WINDOW)
    assert (refused.value.code, refused.value.detail) == (
        "invalid_at",
        "`at` is not a valid date-time: '2026-11-21T18:03:05+13:60'.",
    )
