"""Settings of the whole suite: the hypothesis profiles of the property tests.

The default profile ("suite") is derandomized: every run draws the same
examples, so a property test passes or fails the same way each time (and a
strict xfail stays honest).  `HYPOTHESIS_PROFILE=explore` draws many more,
at random, to hunt for new failures by hand."""

import os

from hypothesis import settings

settings.register_profile("suite", max_examples=50, deadline=None, derandomize=True, database=None,
                          print_blob=True)
settings.register_profile("explore", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))
