"""Agent loops: a model, an environment, optional memory tools."""
