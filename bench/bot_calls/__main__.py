"""``python -m bench.bot_calls``: the benchmark's command."""

import sys

from bench.bot_calls.runner import main

sys.exit(main())
