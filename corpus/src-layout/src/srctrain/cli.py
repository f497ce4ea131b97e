import argparse

from srctrain.fit import fit


def main() -> None:
    parser = argparse.ArgumentParser(prog="srctrain-fit")
    parser.add_argument("--steps", type=int, default=10)
    fit(parser.parse_args().steps)
