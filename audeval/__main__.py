"""``python -m audeval``: the command line interface."""

import sys

from audeval._cli import main


if __name__ == "__main__":
    sys.exit(main())
