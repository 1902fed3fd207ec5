"""The link's services: applying the pool's entries (``apply``)."""
