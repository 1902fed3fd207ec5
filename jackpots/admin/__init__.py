"""The jackpots in the admin: the hits queue, progressives and their levels, the exchange rates."""

from jackpots.admin import hits, levels, proposals, rates  # noqa: F401 - registers the model admins
