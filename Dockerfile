# One image for web (uvicorn), worker and beat (Celery); docker-compose.yml picks the command.
FROM python:3.11-slim-bookworm

# glibc's allocator: two arenas, and buffers of 64 KiB or more (request bodies as they arrive) in memory
# of their own, given back when freed. With the defaults a flood of large bodies left the server holding
# much of what it had buffered (bench/flood.py: 111-181 MiB kept after it, 99-102 MiB with these, from
# 95 MiB before).
ENV MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=65536 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=config.settings

WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# Static files are collected at build time (servestatic serves them); the values below exist only so the
# settings load during the build, they are not used at run time.
RUN SECRET_KEY=build-time-only-secret-key-not-used-at-run-time ALLOWED_HOSTS=build DATABASE_URL= REDIS_URL= \
    python manage.py collectstatic --no-input -v0 \
 && useradd --system --home-dir /app --shell /usr/sbin/nologin progressivo \
 && mkdir -p /app/var \
 && chown -R progressivo /app/var

USER progressivo
EXPOSE 8000
# X-Forwarded-For and -Proto are believed only from FORWARDED_ALLOW_IPS (uvicorn and the settings read it;
# set it to the TLS proxy's address), the client being the right-most address that is not a proxy's.
ENV FORWARDED_ALLOW_IPS=127.0.0.1,::1
CMD ["uvicorn", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", "--lifespan", "off", \
     "--ws-per-message-deflate", "false", "--proxy-headers"]
