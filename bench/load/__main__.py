"""``python -m bench.load``: the benchmark's command."""

import contextlib
import sys

from bench.load.runner import main

with contextlib.suppress(KeyboardInterrupt):
    sys.exit(main())
