"""Failure attribution of Layer B pairs (docs/attribution.md): the record-form lexicons, the target
anchors, the evidence that the solver read a record, the ordered rules, the strip arms and the gate.
Pure functions of texts, patches and trajectory steps: reading run folders is ``runs.coding.analysis``."""
