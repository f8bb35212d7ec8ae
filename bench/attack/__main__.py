"""``python -m bench.attack``: the benchmark's command."""

import sys

from bench.attack.runner import main

sys.exit(main())
