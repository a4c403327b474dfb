"""The vehicle agent and the memory conditions it runs under."""
