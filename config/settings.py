"""Progressivo settings, all from the environment (see README, "Settings").

With no DATABASE_URL / REDIS_URL the project runs on its embedded default: SQLite, the in-memory channel
layer and Celery in eager mode. Setting them switches to PostgreSQL, channels_redis and a real worker.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config.env import (
    channel_layer_prefix,
    env_bool,
    env_choice,
    env_database,
    env_decimal,
    env_int,
    env_list,
    env_proxies,
    env_redis,
    env_str,
)
from config.env_file import env_file_apply, env_file_path

BASE_DIR = Path(__file__).resolve().parent.parent
# The local settings file (.env, config/env_file.py) before any variable is read; the environment wins.
env_file_apply(env_file_path())

DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set (a long random string) when DEBUG is off.")
    SECRET_KEY = "insecure-development-key-only-for-debug"
elif len(SECRET_KEY) < 32 and not DEBUG:
    raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters long when DEBUG is off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
if not ALLOWED_HOSTS and not DEBUG:
    raise ImproperlyConfigured("ALLOWED_HOSTS must list the host names served when DEBUG is off.")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Origins allowed to open websockets (signage screens, floor map); empty means the ALLOWED_HOSTS.
WEBSOCKET_ALLOWED_ORIGINS = env_list("WEBSOCKET_ALLOWED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "import_export",
    "channels",
    "axes",
    "common.apps.CommonConfig",
    "floor.apps.FloorConfig",
    "slots.apps.SlotsConfig",
    "jackpots.apps.JackpotsConfig",
    "tables.apps.TablesConfig",
    "gatewaylink.apps.GatewaylinkConfig",
    "signage.apps.SignageConfig",
    "linkcentral.apps.LinkcentralConfig",
    "linksite.apps.LinksiteConfig",
    "workspace.apps.WorkspaceConfig",
    "demo.apps.DemoConfig",
]

MIDDLEWARE = [
    "floor.middleware.nul_path_refuse",
    "django.middleware.security.SecurityMiddleware",
    # ServeStatic, with the built manual at /manual/ as well (config/manual.py).
    "config.manual.ManualStaticMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "floor.middleware.StaffLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes requires: it turns a locked-out login into its lockout answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                # The workspace's shell (venue switcher, nav), drawn only by pages that show it.
                "workspace.shell.shell_context",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------
_database = env_database("DATABASE_URL")
USING_POSTGRES = _database is not None
# The ledger's (level, at) index carries the meter deltas (INCLUDE) for the day register on PostgreSQL;
# the embedded default's SQLite indexes the keys alone, which is all a demo floor needs.
SILENCED_SYSTEM_CHECKS = [] if USING_POSTGRES else ["models.W040"]
DATABASES = {
    "default": _database
    or {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": env_str("SQLITE_PATH", str(BASE_DIR / "var" / "progressivo.sqlite3")),
        # WAL: the signs' and pages' reads go on while the simulator and the ticker write (in the default
        # rollback journal a reader could wait behind every queued writer).
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }
}
if not USING_POSTGRES:
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
# Under ASGI every request runs its sync code in a thread of its own, so a per-thread persistent
# connection is never reused (and they pile up until PostgreSQL refuses more clients). Serve with a
# connection pool of this many connections per process instead (psycopg_pool); 0 keeps persistent ones.
DATABASE_POOL_SIZE = env_int("DATABASE_POOL_SIZE", 0, minimum=0)
if USING_POSTGRES and DATABASE_POOL_SIZE:
    DATABASES["default"].update(CONN_MAX_AGE=0, CONN_HEALTH_CHECKS=False)
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": DATABASE_POOL_SIZE,
        "timeout": 10,
    }
# Server-side limits on every PostgreSQL session, so that a stuck statement or a lock held too long fails
# with an error instead of holding a server thread (and its pooled connection) for ever. The slowest web
# statements are report pages (under 2 s at a month of 450 machines, README "Benchmarks"), so 30 s is far
# from normal work; a lock waited on for 10 s means something holds it wrongly (engine and ingest hold
# theirs for milliseconds). Set per role through the environment: the worker's batch work gets more
# (docker-compose.yml, scripts/run), and migrations run with no statement limit (an index on a large
# table may take minutes) but keep the lock limit, so they never queue behind a long transaction while
# everything queues behind them. 0 turns a limit off.
DATABASE_STATEMENT_TIMEOUT_SECONDS = env_int("DATABASE_STATEMENT_TIMEOUT_SECONDS", 30, minimum=0)
DATABASE_LOCK_TIMEOUT_SECONDS = env_int("DATABASE_LOCK_TIMEOUT_SECONDS", 10, minimum=0)
if USING_POSTGRES:
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (
        f"-c statement_timeout={DATABASE_STATEMENT_TIMEOUT_SECONDS * 1000} "
        f"-c lock_timeout={DATABASE_LOCK_TIMEOUT_SECONDS * 1000}"
    )
    # Django's cursors bind parameters on the client and never prepare a statement; the events' move
    # (slots.services.storage), which binds on the server, asks to be prepared once a session, which
    # psycopg refuses on a connection whose threshold is None (Django's default).
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis, Celery, channel layer -----------------------------------------------------------------
REDIS_URL = env_redis("REDIS_URL")
USING_REDIS = REDIS_URL is not None

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
# Without Redis there is no worker: tasks run in-process, after the commit that enqueued them.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=not USING_REDIS)
# The embedded default's floor ticker inside the ASGI server (the demo app registers it, config/lifespan.py
# runs it), where the signs listen to the in-memory channel layer; `make run` turns it on. With Redis, beat
# does the ticker's work.
FLOOR_TICKER_IN_SERVER = env_bool("FLOOR_TICKER_IN_SERVER", False)
if FLOOR_TICKER_IN_SERVER and USING_REDIS:
    raise ImproperlyConfigured(
        "FLOOR_TICKER_IN_SERVER is for the embedded default: with REDIS_URL, beat runs."
    )
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes the database connection around every task unless this is set, so each engine
# run paid a new PostgreSQL connection (7-9 ms here). config.celery tidies connections around each task as
# Django does around each request (CONN_MAX_AGE, health checks, broken connections); the fixup's own close
# then happens only every 2 x this many tasks.
CELERY_DB_REUSE_MAX = 1000
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task that runs this long is stuck (the engine applies a batch in well under a second, the report
# summaries in seconds): the soft limit raises SoftTimeLimitExceeded in it, so its transaction rolls
# back and nothing is half-applied; the hard limit kills the worker process if even that does not end
# it, freeing one of the worker's two slots. Nothing is lost: the events stay pending and beat sends the
# engine again every second. Above the worker's statement timeout, so a slow statement fails first.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 150, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 180, minimum=2)
if CELERY_TASK_TIME_LIMIT <= CELERY_TASK_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured("CELERY_TASK_TIME_LIMIT must be more than CELERY_TASK_SOFT_TIME_LIMIT.")
CELERY_TIMEZONE = "Europe/Rome"
# Beat's schedule is set in config/celery.py (app.conf.beat_schedule), next to the tasks it names.

if USING_REDIS:
    # Redis pub/sub: one PUBLISH per group message, received once per server process and fanned out in
    # memory to its consumers. The list-based RedisChannelLayer costs a Redis round trip and a message
    # copy per member channel, which 1,000 signs multiply (see README "Benchmarks").
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": env_str("CHANNEL_LAYER_BACKEND", "channels_redis.pubsub.RedisPubSubChannelLayer"),
            "CONFIG": {
                # redis-py 8's 5 s socket timeout kills the layer's blocking read (docs/design.md "Known
                # traps").
                "hosts": [{"address": REDIS_URL, "socket_timeout": None, "max_connections": 1000}],
            },
        }
    }
    if CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer":
        CHANNEL_LAYERS["default"]["CONFIG"].update({"capacity": 1500, "expiry": 10})
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1500}}
    }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Installation isolation and faults ----------------------------------------------------------------
# Two installations may share one Redis server: each uses its own database number (Celery's queues, the
# cache) and the channel layer's names carry it, with CHANNEL_LAYER_PREFIX, since pub/sub ignores it.
CHANNEL_LAYER_PREFIX = env_str("CHANNEL_LAYER_PREFIX", "progressivo")
if USING_REDIS:
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = channel_layer_prefix(REDIS_URL, CHANNEL_LAYER_PREFIX)
if USING_POSTGRES and DATABASE_POOL_SIZE:
    # With health checks on, Django gives the pool psycopg_pool's check_connection: a pooled connection
    # is checked (one round trip) before it is handed out. Without it, after a PostgreSQL restart the
    # pool handed every request a dead connection once.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

# --- Auth, i18n -------------------------------------------------------------------------------------
# Login throttling (django-axes) for the admin login, the only password login: staff accounts move money
# (hit payments, parameter changes), so password guessing is cut off. After AXES_FAILURE_LIMIT failures
# for one username (from any addresses), or from one address (for any usernames), that username or address
# is locked for AXES_COOLOFF_TIME: by pair alone, a guesser changing address on every attempt, or trying
# one password on many usernames, was never locked. The price: failing on purpose locks a manager out for
# the cool-off (an administrator unlocks with `manage.py axes_reset_username`). A success resets the count.
# uvicorn --proxy-headers puts the client's address in REMOTE_ADDR, believing X-Forwarded-For only from
# FORWARDED_ALLOW_IPS (read here so that a '*' or a typo stops the start; uvicorn reads the same variable).
FORWARDED_ALLOW_IPS = env_proxies("FORWARDED_ALLOW_IPS")
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = env_choice("LANGUAGE_CODE", "en", ("en", "it"))
LANGUAGES = [("it", _("Italian")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Rome"
USE_I18N = True
USE_TZ = True

# --- Static files -----------------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # the static server warns when it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "servestatic.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
SERVESTATIC_USE_FINDERS = True
# The manual: `make docs` builds docs/ into MANUAL_ROOT, served at /manual/ (config/manual.py) with each
# folder's index.html as its page. The workspace's header links to MANUAL_URL: /manual/, or the address
# of a manual published elsewhere (an image built from requirements.txt alone has no mkdocs).
SERVESTATIC_INDEX_FILE = True
MANUAL_ROOT = BASE_DIR / "site"
MANUAL_URL = env_str("MANUAL_URL", "/manual/")

# --- Security (production values unless DEBUG) ------------------------------------------------------
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_ENGINE = "common.sessions"
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# --- REST framework and OpenAPI ---------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "UNAUTHENTICATED_USER": None,
    # Every error of /api/... as {"error", "detail"} (docs/api.md); urls.py's handlers do the rest.
    "EXCEPTION_HANDLER": "common.api_errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Progressivo API",
    "DESCRIPTION": "Machine and gateway events, table rounds and jackpot amounts of the Casinò di Venezia.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI served from the project's static files (drf-spectacular-sidecar): /api/docs/ works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Choice sets that share a field name with another component's ("state", "hand") get names of their own.
    "ENUM_NAME_OVERRIDES": {
        "LevelStateEnum": [("active", "active"), ("suspended", "suspended")],
        "DeclarationStateEnum": [("pending", "pending"), ("released", "released")],
        "DeclaredHandEnum": [("royal_flush", "royal_flush"), ("straight_flush", "straight_flush")],
        "HandEnum": "tables.rules.Hand",
        "RoundStateEnum": "tables.models.TableRound.State",
    },
}

# --- The floor and the engine -----------------------------------------------------------------------
# Largest request body the events API accepts (docs/api.md: 1 MiB, over it 413).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 1024 * 1024, minimum=1024)
# What a server process's API requests may hold of their bodies together (common.request_body), and how
# long a body arriving in parts waits for its share before it is refused with 503: 32 bodies of the limit.
API_BODY_BUDGET = env_int(
    "API_BODY_BUDGET", 32 * DATA_UPLOAD_MAX_MEMORY_SIZE, minimum=DATA_UPLOAD_MAX_MEMORY_SIZE
)
API_BODY_WAIT_SECONDS = env_decimal("API_BODY_WAIT_SECONDS", "5")
if not Decimal("0") < API_BODY_WAIT_SECONDS <= Decimal("60"):
    raise ImproperlyConfigured("API_BODY_WAIT_SECONDS must be more than 0 and at most 60.")
# A machine silent this long is offline and out of the progressives (G2S noProgInfo default, 30 s).
MACHINE_OFFLINE_AFTER_SECONDS = env_int("MACHINE_OFFLINE_AFTER_SECONDS", 30, minimum=1)
# A machine heard again is back in play from this many seconds before its event arrived: the event that
# brings it back (a game just played) is dated a moment before it reaches the server and must count;
# games held for longer (a link that was down) stay out of play (docs/payments.md).
MACHINE_BACK_GRACE_SECONDS = env_int("MACHINE_BACK_GRACE_SECONDS", 10, minimum=0)
# The window of an event's or a table round's `at` (common.times): how far into the future it may be
# (clock drift) and how old (a gateway forwards what it buffered during an outage; a week covers a long
# one). Outside it the event (at_in_future, at_too_old) or the round is refused.
EVENT_MAX_FUTURE_SECONDS = env_int("EVENT_MAX_FUTURE_SECONDS", 300, minimum=0)
EVENT_MAX_AGE_SECONDS = env_int("EVENT_MAX_AGE_SECONDS", 7 * 24 * 3600, minimum=60)
if EVENT_MAX_FUTURE_SECONDS > 24 * 3600 or EVENT_MAX_AGE_SECONDS > 366 * 24 * 3600:
    raise ImproperlyConfigured("EVENT_MAX_FUTURE_SECONDS may be at most a day, EVENT_MAX_AGE_SECONDS a year.")
# Plausible limits of a game's win (slots.services.parsing, win_out_of_range). The top awards of slot pay
# tables are thousands to tens of thousands of times the bet, so 100,000 times the wager refuses only what
# no pay table pays; progressive prizes arrive as jackpot events, not in a game's win. The absolute cap,
# EUR 10,000,000, is above any single game's win on the floor (max bet EUR 500).
# The hour summaries' bigint sums cannot overflow: an hour counts fewer than 2^31 games (its games column;
# 600,000 events a second for an hour, over ten times the API's throughput), a wager is below 2^31 cents
# (the machine's max bet column) and a win at most 4 x 10^9 cents (the cap's ceiling), so each sum stays
# below 2^31 x 2^32 = 2^63.
GAME_WIN_MAX_MULTIPLE = env_int("GAME_WIN_MAX_MULTIPLE", 100_000, minimum=1)
GAME_WIN_MAX_CENTS = env_int("GAME_WIN_MAX_CENTS", 1_000_000_000, minimum=1)
if GAME_WIN_MAX_CENTS > 4_000_000_000:
    raise ImproperlyConfigured("GAME_WIN_MAX_CENTS may be at most 4,000,000,000 (EUR 40,000,000).")
# Largest jackpot a machine may report (amount_out_of_range): EUR 100,000,000, above the largest slot
# jackpot ever paid (about USD 40 million), far below the bigint limit.
JACKPOT_MAX_CENTS = env_int("JACKPOT_MAX_CENTS", 10_000_000_000, minimum=1)
# A progressive whose pending events wait longer than this shows "link down" on its signs.
LINK_STALE_AFTER_SECONDS = env_int("LINK_STALE_AFTER_SECONDS", 10, minimum=1)
# The wide-area link (docs/wide-area.md). The link: a heartbeat on each site's pool socket this often.
LINK_HEARTBEAT_SECONDS = env_decimal("LINK_HEARTBEAT_SECONDS", "5")
# A site: its forwarder says "played through" at least this often with an empty outbox; its signs show the
# link down after this long without a word from it (a pool frame or a heartbeat).
LINK_THROUGH_SECONDS = env_decimal("LINK_THROUGH_SECONDS", "2")
LINK_SILENCE_SECONDS = env_decimal("LINK_SILENCE_SECONDS", "15")
# A site: how long after a round is played its table has surely posted it. The forwarder tells the link it
# has played through "now" minus this, so the link applies the pool within about this much of play; a round
# posted later still goes (the link applies it when it comes, in the next cycle if a claim was decided).
LINK_THROUGH_LAG_SECONDS = env_decimal("LINK_THROUGH_LAG_SECONDS", "10")
# A site: the forwarder's and the listener's patience with the link, and how often an idle outbox is read.
LINK_HTTP_TIMEOUT_SECONDS = env_decimal("LINK_HTTP_TIMEOUT_SECONDS", "10")
LINK_BACKOFF_MAX_SECONDS = env_decimal("LINK_BACKOFF_MAX_SECONDS", "60")
LINK_FORWARD_POLL_SECONDS = env_decimal("LINK_FORWARD_POLL_SECONDS", "1")
_LINK_SECONDS = ("LINK_HEARTBEAT_SECONDS", "LINK_THROUGH_SECONDS", "LINK_SILENCE_SECONDS",
                 "LINK_THROUGH_LAG_SECONDS", "LINK_HTTP_TIMEOUT_SECONDS", "LINK_BACKOFF_MAX_SECONDS",
                 "LINK_FORWARD_POLL_SECONDS")  # fmt: skip
if min(globals()[name] for name in _LINK_SECONDS) <= 0:
    raise ImproperlyConfigured(f"{', '.join(_LINK_SECONDS)} must each be more than 0.")
# Default two-person threshold for hits (Nevada MICS handpay, €1,200), per venue editable.
HANDPAY_THRESHOLD_CENTS = env_int("HANDPAY_THRESHOLD_CENTS", 120000, minimum=0)
# Business day closes at this local hour (reports).
BUSINESS_DAY_CLOSE_HOUR = env_int("BUSINESS_DAY_CLOSE_HOUR", 6, minimum=0)
# Day close: a machine whose meter and the day's events or hits differ by more than this (cents, either
# way) is flagged. A meter snapshot can trail the last games by up to a minute, hence not zero.
DAY_CLOSE_TOLERANCE_CENTS = env_int("DAY_CLOSE_TOLERANCE_CENTS", 100, minimum=0)
if BUSINESS_DAY_CLOSE_HOUR > 23:
    raise ImproperlyConfigured("BUSINESS_DAY_CLOSE_HOUR must be an hour between 0 and 23.")
CONTRIBUTIONS_BATCH_SIZE = env_int("CONTRIBUTIONS_BATCH_SIZE", 5000, minimum=1)
# Meter plausibility (slots.services.meters.meter_ceiling): a machine plays at most one game per
# METERS_MIN_GAME_MILLISECONDS, wagers at most its max bet a game and pays (or takes in bills and
# tickets) at most METERS_MAX_PAYOUT_BETS max bets a game; a snapshot's delta beyond that times
# METERS_PLAUSIBILITY_MARGIN is flagged for a person and left out of the reports until reviewed.
METERS_MIN_GAME_MILLISECONDS = env_int("METERS_MIN_GAME_MILLISECONDS", 1000, minimum=1)
METERS_MAX_PAYOUT_BETS = env_int("METERS_MAX_PAYOUT_BETS", 10_000, minimum=1)
METERS_PLAUSIBILITY_MARGIN = env_int("METERS_PLAUSIBILITY_MARGIN", 2, minimum=1)
# The engine applies an event once its `at` is this old, in the order of play: events of near-simultaneous
# play posted in different requests within this window are numbered and paid in the order they were played.
ENGINE_SETTLE_MILLISECONDS = env_int("ENGINE_SETTLE_MILLISECONDS", 250, minimum=0)
if ENGINE_SETTLE_MILLISECONDS > 5000:
    raise ImproperlyConfigured("ENGINE_SETTLE_MILLISECONDS must be at most 5000 (signs wait that long).")
# Signs: amount updates are coalesced to at most this many frames a second per screen (docs/api.md: 4).
SIGNAGE_MAX_UPDATES_PER_SECOND = env_decimal("SIGNAGE_MAX_UPDATES_PER_SECOND", "4")
if not Decimal("0.1") <= SIGNAGE_MAX_UPDATES_PER_SECOND <= Decimal("4"):
    raise ImproperlyConfigured("SIGNAGE_MAX_UPDATES_PER_SECOND must be between 0.1 and 4.")
# A sign waits at most this long for the rest of an engine batch (one message per progressive) so that
# they make one frame; a complete batch goes out at once.
SIGNAGE_GATHER_MILLISECONDS = env_int("SIGNAGE_GATHER_MILLISECONDS", 50, minimum=0)
# A heartbeat frame at least this often, even with no change (SAS expects a refresh every 5 s).
SIGNAGE_HEARTBEAT_SECONDS = env_decimal("SIGNAGE_HEARTBEAT_SECONDS", "4")
if not Decimal("0.01") <= SIGNAGE_HEARTBEAT_SECONDS <= Decimal("5"):
    raise ImproperlyConfigured("SIGNAGE_HEARTBEAT_SECONDS must be between 0.01 and 5.")
# The SAS gateway's websocket sends a heartbeat at least this often (its machines need a broadcast every
# 5 s and it stops broadcasting when the server has been silent for its `fresh_for`); each heartbeat also
# checks that the gateway key is still current.
GATEWAY_HEARTBEAT_SECONDS = env_decimal("GATEWAY_HEARTBEAT_SECONDS", "2")
if not Decimal("0.01") <= GATEWAY_HEARTBEAT_SECONDS <= Decimal("5"):
    raise ImproperlyConfigured("GATEWAY_HEARTBEAT_SECONDS must be between 0.01 and 5.")
# Websocket handshakes one client address may make in one second (common.socket_limits): a venue's signs
# opening at once behind one address fit; a flood does not reach the consumers.
WEBSOCKET_HANDSHAKES_PER_SECOND = env_int("WEBSOCKET_HANDSHAKES_PER_SECOND", 60, minimum=1)
# Live sign connections one screen token may hold at once (a screen, its reconnects and a preview or two):
# a leaked token cannot open hundreds and starve the real signs. One more is closed with 4429.
SIGNAGE_CONNECTIONS_PER_SCREEN = env_int("SIGNAGE_CONNECTIONS_PER_SCREEN", 10, minimum=1)
# How often each server process re-evaluates the link state of the progressives its signs show.
SIGNAGE_LINK_CHECK_SECONDS = env_decimal("SIGNAGE_LINK_CHECK_SECONDS", "2")
if SIGNAGE_LINK_CHECK_SECONDS <= 0:
    raise ImproperlyConfigured("SIGNAGE_LINK_CHECK_SECONDS must be more than 0.")
# A sign on which nothing has changed (no amount, hit, link or theme) for this long plays its attract
# animation, until the next change.
SIGNAGE_ATTRACT_SECONDS = env_int("SIGNAGE_ATTRACT_SECONDS", 60, minimum=5)

# Screen tokens travel in query strings: config.log_redaction blanks ``token=`` values in every record
# of the request loggers (uvicorn's access and websocket lines, django.request, django.server) and of
# the console handler.
LOGGING_CONFIG = "config.log_redaction.logging_configure"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"query_tokens": {"()": "config.log_redaction.QueryTokenRedactFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["query_tokens"]}
    },
    "root": {
        "handlers": ["console"],
        "level": env_choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")),
    },
    # axes.apps announces its configuration at every start; failed logins stay logged (axes.handlers).
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes.apps": {"level": "WARNING"}},
}
if not USING_REDIS:
    # The in-memory broker's URL (memory://) names no host, and kombu warns about it at every start.
    LOGGING["loggers"]["kombu.connection"] = {"level": "ERROR"}
