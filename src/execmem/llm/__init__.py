"""Talking to language models: the client for OpenAI-compatible endpoints and what it needs."""
