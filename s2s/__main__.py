import sys

from s2s import gc_pause
from s2s.cli.main import main

gc_pause.command_line_process()     # one command-line run: the process ends with it
sys.exit(main())
