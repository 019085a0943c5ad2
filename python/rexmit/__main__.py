import sys

from rexmit.cli import main

sys.exit(main())
