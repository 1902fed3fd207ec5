"""Lists written as PostgreSQL array literals read back as the same values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from common import pg_arrays
from common.pg_arrays import array_literal

BIGINT = st.integers(-(2**63), 2**63 - 1)
# PostgreSQL text cannot hold NUL; anything else, quotes, backslashes, braces, commas and spaces included.
TEXT = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=20)
INSTANT = st.datetimes(
    min_value=datetime(1970, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
) | st.datetimes(
    min_value=datetime(1970, 1, 2),
    max_value=datetime(2200, 1, 1),
    timezones=st.just(timezone(timedelta(hours=2))),
)


def test_each_kind_of_value_is_written_as_postgresql_reads_it():
    at = datetime(2026, 11, 29, 5, 49, 0, 123456, tzinfo=UTC)
    assert array_literal([1, -2, None, 9_223_372_036_854_775_807]) == "{1,-2,NULL,9223372036854775807}"
    assert (
        array_literal(["NOG-0001", 'a"b\\c', "", "NULL", None]) == '{"NOG-0001","a\\"b\\\\c","","NULL",NULL}'
    )
    assert array_literal([at, None]) == '{"2026-11-29T05:49:00.123456+00:00",NULL}'
    assert array_literal([True, False, None]) == "{t,f,NULL}"
    assert array_literal([]) == "{}"
    with pytest.raises(TypeError):
        array_literal([1.5])


def test_plain_texts_are_written_without_a_call_per_element(monkeypatch):
    """Asset numbers, a gateway's batch's one text column: joined by C, not escaped one by one. The check
    for a quote once looked in the joined text, where the separator's own quotes always are, so any two
    texts took the call per element (0.27 µs each, against 0.05)."""

    def per_element(value: object) -> str:
        raise AssertionError(f"a call for {value!r}")

    monkeypatch.setattr(pg_arrays, "_element", per_element)
    assert array_literal(["NOG-0001", "NOG-0002", "VEN 0003"]) == '{"NOG-0001","NOG-0002","VEN 0003"}'
    assert array_literal(["NOG-0001"]) == '{"NOG-0001"}'


def test_a_text_with_a_quote_or_a_backslash_is_escaped_among_plain_ones():
    assert array_literal(["NOG-0001", 'a"b', "c\\d"]) == '{"NOG-0001","a\\"b","c\\\\d"}'
    assert array_literal(['"', "x"]) == '{"\\"","x"}'


def _read(literal: str, sql_type: str) -> list:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT %s::{sql_type}[]", [literal])
        return cursor.fetchone()[0]


@pytest.mark.postgres
@pytest.mark.django_db
@settings(max_examples=60, deadline=None)
@given(
    numbers=st.lists(st.none() | BIGINT, max_size=12),
    texts=st.lists(st.none() | TEXT, max_size=12),
    only_texts=st.lists(TEXT, max_size=12),
    instants=st.lists(st.none() | INSTANT, max_size=12),
    flags=st.lists(st.none() | st.booleans(), max_size=12),
)
def test_postgresql_reads_back_the_values_written(numbers, texts, only_texts, instants, flags):
    assert _read(array_literal(numbers), "bigint") == numbers
    assert _read(array_literal(texts), "text") == texts
    assert _read(array_literal(only_texts), "text") == only_texts
    assert _read(array_literal(instants), "timestamptz") == instants
    assert _read(array_literal(flags), "boolean") == flags
