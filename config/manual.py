"""The manual (docs/, built by `make docs` into site/) served at /manual/ by the static files' server, so
the workspace's header can link to it on a casino network without internet.

ServeStatic serves STATIC_ROOT (or the finders) under STATIC_URL and one optional root at "/"; the manual
needs a prefix of its own, so this subclass adds site/ under MANUAL_PREFIX. Without a built site the
prefix answers nothing and Django's 404 follows; with DEBUG the directory is read on each request, so a
`make docs` while the server runs is seen at once.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from servestatic.middleware import ServeStaticMiddleware

MANUAL_PREFIX = "/manual/"


class ManualStaticMiddleware(ServeStaticMiddleware):
    def __init__(self, get_response=None, settings=settings) -> None:
        super().__init__(get_response, settings=settings)
        root = Path(settings.MANUAL_ROOT)
        # Without autorefresh the files are listed now; a missing directory would only warn.
        if self.autorefresh or root.is_dir():
            self.add_files(str(root), prefix=MANUAL_PREFIX)
