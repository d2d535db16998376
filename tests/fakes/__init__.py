"""Test doubles for external services (no real network beyond 127.0.0.1): ``telegram`` (the
Bot API) and ``discord`` (REST API and gateway)."""
