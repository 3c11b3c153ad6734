"""Test support shared by the flow tests and the benchmarks."""
