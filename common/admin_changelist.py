"""The admin's change list with its date drill-down bounded: shared by every admin with a date_hierarchy."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.filters import ListFilter
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.http import HttpRequest

# What ChangeList.get_filters answers: the filters, whether any is used, the lookups, two flags.
Filters = tuple[list[ListFilter], bool, dict[str, bool | str], bool, bool]


class BoundedChangeList(ChangeList):
    """A drill-down outside the calendar (``?at__year=99999999999``, or the day after 9999-12-31) is refused
    like any other bad filter (the list reloads with ``?e=1``): Django catches the ValueError of an
    impossible day but not the OverflowError of these, which answered 500."""

    def get_filters(self, request: HttpRequest) -> Filters:
        try:
            return super().get_filters(request)
        except OverflowError as error:
            raise IncorrectLookupParameters(error) from error


class BoundedDateHierarchyMixin:
    """For a ModelAdmin with a ``date_hierarchy``."""

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return BoundedChangeList
