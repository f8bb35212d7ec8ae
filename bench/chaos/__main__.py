"""``python -m bench.chaos``: the benchmark's command."""

import sys

from bench.chaos.runner import main

sys.exit(main())
