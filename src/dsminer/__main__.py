"""The `dsminer` command (and `python -m dsminer`).

The command line is imported when the command runs, not when this module is: the PDF parser's processes start
from the command's script and import it again, and they need only the parser, not the command line, DSPy and
MLflow (seconds of imports per process, at the start of every run).
"""


def main() -> None:
    from dsminer.cli import app

    app()


if __name__ == "__main__":
    main()
