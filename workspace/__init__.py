"""What staff use.

The hits desk, the live floor map, progressives, reports, day close, inventory, sign previews, health.
May import every app below it; only the demo (demo/) imports it.
"""
