"""The old home of `register_for_arrays` (now chainrules.rulesets._arrays),
kept for rulesets/numpy/linalg/products.py while it is being rewritten
(issue 22 item 2): the lead removes this file after merging."""

from chainrules.rulesets._arrays import register_for_arrays

__all__ = ["register_for_arrays"]
