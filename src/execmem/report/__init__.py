"""The HTML report: one self-contained file of vehicle and coding runs (``execmem report``)."""
