"""The benchmarks run as tests."""
