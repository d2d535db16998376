# The bot in one image: python -m bot telegram | discord | all (REDIS_URL, tokens from the environment)
FROM python:3.12-slim
WORKDIR /app
COPY pyproject.toml README.md babel.cfg ./
COPY engine engine
COPY bot bot
COPY adapters adapters
COPY locales locales
COPY tools tools
RUN pip install --no-cache-dir . \
    && pybabel compile -d locales -D messages
ENV LOCALES_DIR=/app/locales DATA_DIR=/data
VOLUME /data
CMD ["python", "-m", "bot", "all"]
