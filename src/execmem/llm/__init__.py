"""Talking to language models: OpenAI-compatible clients and an offline fake server."""
