"""`python -m pbem` is the same as the `pbem` command."""

from .cli import main

main()
