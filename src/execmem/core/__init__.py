"""Shared core: protocols and small utilities that every layer may use."""
