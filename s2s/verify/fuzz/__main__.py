"""``python -m s2s.verify.fuzz worker CONFIG``: a worker of the pool."""

import sys

from s2s.verify.fuzz.pool import main

sys.exit(main())
