"""Secrets in URLs never reach the logs: a screen's token travels in its page's and websocket's query
string (``/signage/nog-1/?token=...``), which uvicorn's access log, uvicorn's websocket log and Django's
request logs would otherwise write out whole.

``logging_configure`` is Django's LOGGING_CONFIG: it applies settings.LOGGING as usual, then puts the
redacting filter on the loggers that write request lines. A logger's own filter is used because uvicorn's
access logger and Django's server logger have their own handlers and do not propagate to the root one
(whose handler carries the filter too, for everything else); adding it leaves their handlers and
formats, set up by uvicorn before it loads the application, untouched.
"""

from __future__ import annotations

import logging
import logging.config
import re
from typing import Any

REDACTED = "[redacted]"
# ``token=`` as a query parameter (after ``?``, ``&`` or ``;``), up to the next separator or quote.
_QUERY_TOKEN = re.compile(r"(?i)([?&;]token=)[^&;#\s\"']*")
REDACTED_LOGGERS = ("uvicorn.access", "uvicorn.error", "django.request", "django.server")


def query_tokens_redact(text: str) -> str:
    return _QUERY_TOKEN.sub(lambda match: match.group(1) + REDACTED, text)


def _redacted(value: Any) -> Any:
    return query_tokens_redact(value) if isinstance(value, str) else value


class QueryTokenRedactFilter(logging.Filter):
    """Rewrites the message and its arguments in place (formatters such as uvicorn's AccessFormatter
    read the arguments, not the message) and lets the record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = _redacted(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_redacted(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _redacted(arg) for key, arg in record.args.items()}
        return True


def logging_configure(config: dict) -> None:
    logging.config.dictConfig(config)
    for name in REDACTED_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, QueryTokenRedactFilter) for existing in logger.filters):
            logger.addFilter(QueryTokenRedactFilter())
