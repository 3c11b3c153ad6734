"""Benchmarks (`make bench`): figures printed here are recorded in BENCHMARKS.md."""
