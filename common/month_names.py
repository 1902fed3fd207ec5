"""Django's month names, named here so that ``make messages`` keeps the project's Italian for them.

Italian writes month names in lower case ("26 novembre 2026"); Django's own catalogue capitalises them, so
the project's catalogue overrides them. makemessages --no-obsolete drops every entry no source file of the
project names, and dropped these at every refresh. Nothing imports this module: makemessages reads it.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop, pgettext_lazy

MONTHS = (
    gettext_noop("January"),
    gettext_noop("February"),
    gettext_noop("March"),
    gettext_noop("April"),
    gettext_noop("May"),
    gettext_noop("June"),
    gettext_noop("July"),
    gettext_noop("August"),
    gettext_noop("September"),
    gettext_noop("October"),
    gettext_noop("November"),
    gettext_noop("December"),
)
MONTHS_ALT = (
    pgettext_lazy("alt. month", "January"),
    pgettext_lazy("alt. month", "February"),
    pgettext_lazy("alt. month", "March"),
    pgettext_lazy("alt. month", "April"),
    pgettext_lazy("alt. month", "May"),
    pgettext_lazy("alt. month", "June"),
    pgettext_lazy("alt. month", "July"),
    pgettext_lazy("alt. month", "August"),
    pgettext_lazy("alt. month", "September"),
    pgettext_lazy("alt. month", "October"),
    pgettext_lazy("alt. month", "November"),
    pgettext_lazy("alt. month", "December"),
)
