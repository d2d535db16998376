# The bot in one image: kozel-bot telegram | discord | all (REDIS_URL and tokens from the
# environment). Build stage: the build backend and the runtime's dependencies, both locked
# (hashes checked), each in a layer of its own before the code, so a change of the code
# reinstalls and fetches nothing; then the bot's wheel (catalogs compiled), built without
# isolation by the locked backend, which compiles the search's playout path with mypyc (the
# full image: it has the C compiler). The runtime's venv gets no pip, setuptools or wheel.
# No `# syntax=` line: BuildKit would fetch that frontend from a registry.
#
# The two bases are build arguments, so images made locally from Debian's packages serve where
# no registry is reachable (docs/deploy.md: deploy/debian-base.sh makes kozel-build:bookworm and
# kozel-base:bookworm). Both must carry the same Python at the same path: the runtime's venv
# points at the build stage's interpreter.
ARG BUILD_IMAGE=python:3.11
ARG RUNTIME_IMAGE=python:3.11-slim

FROM ${BUILD_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY requirements/build.lock /tmp/build.lock
RUN python3 -m venv /build && /build/bin/pip install --require-hashes -r /tmp/build.lock
COPY requirements/main.lock /tmp/main.lock
RUN python3 -m venv --without-pip /venv \
    && /build/bin/pip --python /venv/bin/python install --require-hashes -r /tmp/main.lock
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY engine engine
COPY bot bot
COPY adapters adapters
COPY locales locales
RUN /build/bin/pip wheel --no-build-isolation --no-deps -w /wheels . \
    && /build/bin/pip --python /venv/bin/python install --no-deps /wheels/kozel_bot-*.whl

# Runtime: the venv only, a user without rights, a health check the bot answers itself.
FROM ${RUNTIME_IMAGE}
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
