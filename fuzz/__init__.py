"""Fuzzing the server: the shared harness and the coverage-guided target."""
