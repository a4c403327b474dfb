"""The vehicle suite: VehicleMemBench on a simulated car."""
