"""The demo (``make run``): the floor and table simulators, the Venezia seed, the demo's start-up (its
database, the admin password and screen tokens it keeps, the summary) and the floor ticker that stands in
for beat on the embedded default. The top of the house: may import every app below it; none imports it.
"""
