"""The jackpots in the admin: the hits queue, progressives and their levels."""

from jackpots.admin import hits, levels  # noqa: F401 - registers the model admins
