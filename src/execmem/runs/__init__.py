"""Runs: self-describing run folders, resume, and the executors that fill them."""
