import sys

from daide.cli import main

sys.exit(main())
