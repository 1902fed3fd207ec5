"""The jackpots in the admin: the hits queue, progressives and their levels, the signs' themes."""

from jackpots.admin import hits, levels, proposals, themes  # noqa: F401 - registers the model admins
