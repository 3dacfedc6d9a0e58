"""The ship's hardware: the circuit as code and the artefacts generated from it."""
