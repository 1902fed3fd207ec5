"""The machine inventory as CSV: export, and an all-or-nothing import with a dry-run preview."""
