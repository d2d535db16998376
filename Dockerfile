# syntax=docker/dockerfile:1
# The bot in one image: kozel-bot telegram | discord | all (REDIS_URL and tokens from the
# environment). Build stage: the locked dependencies (hashes checked) in a layer of their
# own, so a change of the code reinstalls nothing; then the bot's wheel (catalogs compiled).
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /venv
COPY requirements/main.lock /tmp/main.lock
RUN /venv/bin/pip install --require-hashes -r /tmp/main.lock
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY engine engine
COPY bot bot
COPY adapters adapters
COPY locales locales
RUN /venv/bin/pip wheel --no-deps -w /wheels . \
    && /venv/bin/pip install --no-deps /wheels/kozel_bot-*.whl

# Runtime: the venv only, a user without rights, a health check the bot answers itself.
FROM python:3.11-slim
RUN useradd --create-home --uid 10001 kozel && mkdir /data && chown kozel /data
COPY --from=build /venv /venv
ENV PATH=/venv/bin:$PATH PYTHONUNBUFFERED=1 DATA_DIR=/data \
    HEARTBEAT_FILE=/tmp/kozel-bot.heartbeat
USER kozel
WORKDIR /home/kozel
VOLUME /data
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["kozel-bot", "health"]
STOPSIGNAL SIGTERM
CMD ["kozel-bot", "all"]
