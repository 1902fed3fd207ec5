"""The ground floor: what every app may use.

Money, credentials and their digests, the business day, small shared types. Imports no other app of
the project.
"""
