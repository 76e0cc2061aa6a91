import sys

from s2s.cli.main import main

sys.exit(main())
