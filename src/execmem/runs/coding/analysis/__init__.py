"""The coding analyses over finished run folders (docs/attribution.md): Layer B and dose tables,
failure attribution, the strip ablation, headroom and the gate, and ``execmem coding report``'s
tables. The rules themselves are ``suites.coding.attribution``'s."""
