"""Command-line options the PyTorch reference scripts of bench/ share.

Kept apart from torch_common.py so that a script's --help (and its
argument checks, which run before any GPU work) do not load torch.
"""

SECONDS_HELP = ("time each version for about this long after a quarter of it "
                "as warm-up, one round (the H200's power-limited steady state, "
                "docs/PERF.md)")


def add_seconds_argument(parser, instead=""):
    """--seconds, as every script that times with torch_common.time_versions
    declares it; `instead` names what it replaces in that script."""
    parser.add_argument("--seconds", type=float, default=0,
                        help=SECONDS_HELP + (f"; in place of {instead}" if instead else ""))


def check_seconds(parser, args):
    """The parser's error for a negative --seconds."""
    if args.seconds < 0:
        parser.error("--seconds must not be negative")
