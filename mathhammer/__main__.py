"""``python -m mathhammer``: the same as the ``mathhammer`` script."""

from .cli import main

main()
