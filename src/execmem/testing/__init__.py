"""Test doubles shipped with execmem, so the whole path runs offline: a fake OpenAI-compatible
server and its policies, scripted vehicle and coding solvers, and an in-process scripted model."""
