"""``python -m bench.web``: the benchmark's command."""

import sys

from bench.web.runner import main

sys.exit(main())
