"""The benchmarks: ``vehicle`` (VehicleMemBench on a simulated car) and ``coding`` (repository tasks)."""
