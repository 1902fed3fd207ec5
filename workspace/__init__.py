"""The top floor: what staff use.

The hits desk, the live floor map, progressives, reports, day close, inventory, sign previews, the floor
simulator, health. May import every app below it; none imports it.
"""
