"""The other ship: an independent virtual Riff Raff ship for checking the detector honestly.

Written apart from `bosun.sim` (own physics, own parameters) so that a detector tuned on one
model can be scored on the other. `python -m bench.othership --out DIR` writes traces in the
Trace CSV form (DESIGN.md) with their ground truth (`NAME.truth.jsonl`) and items.
"""
