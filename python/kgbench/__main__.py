"""``python -m kgbench`` runs the CLI."""

import sys

from kgbench.cli import main

sys.exit(main())
