"""The installations of the wide-area end-to-end test, each created in its own database:

    python -m tests.wide_area_e2e.setup link <settle seconds> <site code>:<currency> ...
    python -m tests.wide_area_e2e.setup site <code> <currency> <link url> <site key> [<EUR rate>]

The link: the Jumbo 7 pool as an engine level (reset 0, 12% to the meter, 3% to the reserve: the tables'
seed figures), its sites, one key each; prints {"keys": {code: key}, "level": id}. A site: the tables'
seed (its Casino Hold'em tables playing its own Jumbo 7 progressive), its venues' currency and its rate
when it is not the euro, a table key and the membership of the link's pool (both through the demo's
``demo.services.wide_area``, so the test joins a site as the demo does); prints
{"tables": [codes], "key": table key, "level": local level id}.
"""

from __future__ import annotations

import json
import os
import sys
from decimal import Decimal


def link(settle: int, sites: list[str]) -> dict:
    from demo.services.wide_area import link_seed

    specs = [(code, f"Casino {code}", currency) for code, currency in (s.split(":") for s in sites)]
    level, keys = link_seed(specs, settle_seconds=settle)
    return {"keys": keys, "level": level.id}


def site(code: str, currency: str, link_url: str, site_key: str, rate: str | None) -> dict:
    from demo.services.wide_area import site_join
    from tables.models import Table
    from tables.seed import tables_seed
    from tables.services import table_key_issue

    tables_seed(jumbo_7_opening_mc=None)
    membership = site_join(currency, Decimal(rate) if rate else None, link_url, site_key)
    progressive = membership.progressive
    tables = list(Table.objects.filter(progressive=progressive).order_by("code"))
    keys = {table.code: table_key_issue(table)[1] for table in tables}
    return {"tables": [t.code for t in tables], "keys": keys, "level": progressive.pay_table.level_id}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
    import django

    django.setup()
    role, *args = sys.argv[1:]
    if role == "link":
        print(json.dumps(link(int(args[0]), args[1:])))
    else:
        code, currency, url, key, *rate = args
        print(json.dumps(site(code, currency, url, key, rate[0] if rate else None)))


if __name__ == "__main__":
    main()
