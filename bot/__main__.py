"""The command line: ``python -m bot run | play | simulate | copy-db``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="绍兴双扣 and 通化刨王 for Telegram groups, in a terminal, or simulated.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    commands.add_parser("run", help="run the Telegram bot (needs TELEGRAM_BOT_TOKEN)")
    play = commands.add_parser("play", help="play one seat against computer players in a terminal")
    play.add_argument("game", choices=("shuangkou", "paowang"))
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--seat", type=int, default=0, help="your seat, numbered as the table shows")
    simulate = commands.add_parser("simulate", help="play many games between computer players")
    simulate.add_argument("--game", choices=("shuangkou", "paowang"), default="shuangkou")
    simulate.add_argument("--games", type=int, default=100)
    simulate.add_argument(
        "--players", default=None, help="comma-separated kinds, e.g. ai,random,ai,random"
    )
    simulate.add_argument("--seed", type=int, default=0)
    copy = commands.add_parser(
        "copy-db",
        help="copy the whole database to another (SQLite to PostgreSQL) and check the copy",
    )
    copy.add_argument("--from", dest="source", required=True, metavar="URL",
                      help="sqlite:///path, a path, or postgresql://…")
    copy.add_argument("--to", dest="target", required=True, metavar="URL",
                      help="an empty database: postgresql://… or sqlite:///path")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "run":
        from bot.edge.app import run

        return run()
    if args.command == "play":
        from bot.cli.terminal import play

        return play(args.game, seed=args.seed, seat=args.seat)
    if args.command == "simulate":
        from bot.cli.simulate import simulate

        return simulate(args.game, games=args.games, players=args.players, seed=args.seed)
    if args.command == "copy-db":
        from bot.cli.copydb import main as copy_db

        return copy_db(args.source, args.target)
    return 2


if __name__ == "__main__":
    sys.exit(main())
