"""Fits the 刨王 AI's move model to paired play-outs, in rounds of expert iteration:
``python -m bench.train_moves collect --deals N --seed S --policy P --jobs J --out FILE``, then
``python -m bench.train_moves fit FILE... [--write]`` (needs scikit-learn, in the test extra).

``collect`` plays deals at a table of the bot's AI: ``--policy heuristic`` (the hand-written
player with its learned bombs, no move model) or ``--policy model`` (the AI with the move model
in the repository: the next round is labelled in the positions a table of the last round
reaches).
At every decision with more than one sensible move (:func:`bot.game.players.sampling.candidates`
around the heuristic's choice, up to :data:`bot.game.players.paowang_moves.MOVES`) it samples
deals that agree with what the seat has seen and plays every move out on the same samples, with
the heuristic in every seat afterwards (:meth:`bench.search.SearchPlayer.scores`; ``--rollout
model`` plays them out with the model, about five times slower; ``--belief N`` draws N agreeing
deals for each sample and keeps one by how likely the others' actions so far were in it, as
``bench.train_bombs`` does; ``--focus`` labels only the kinds of decision where the room is,
:data:`FOCUS`, and ``--keep 3`` only the heuristic's choice and the committed trees' best two
moves, for several times the decisions of those kinds an hour; ``--leads-above 50`` labels
only leads while more than 50 cards are left in the five hands). A move's label is what it
scored over the heuristic's choice, in
points for the seat, averaged over the samples, with its standard error. One JSON line per deal
(:func:`record_of_deal`): the deal's actions, and at each decision the moves' cards and labels,
not the trees' inputs: ``fit`` replays the deal and reads them with today's features
(:func:`expand`), so a file is about 2 KB a deal gzipped (``bench/labels/`` keeps them) and a
new feature is tried on old labels without labelling again. The first rounds' files, one line
per decision with the inputs in it, are read as they are.

``fit`` boosts small regression trees (scikit-learn's GradientBoostingRegressor) on the labels,
from :data:`bot.game.players.paowang_moves.MOVE_FEATURES`. It holds a fifth of the deals out and
prints, on them, what taking the trees' best move gains over the heuristic's choice by the
labels (the search's own, noisy estimate), at a few margins. ``--write`` fits again on every
decision and writes the trees as plain tuples to ``bot/game/players/paowang_move_model.py``,
which the bot reads without scikit-learn. ``fit --on-top`` keeps the bot's trees and boosts
:data:`TREES_ON_TOP` more on them, fitted to what they leave unexplained (the files that made
them need not be at hand), ``--step 0.5`` adding half of what those say. ``fit --blend 0.5``
averages the bot's model with trees fitted alone, half and half (both sets of trees, their
leaves halved): a half step that, unlike trees on top, can undo what the bot's trees say. All
are deterministic for their arguments. ``fit A B C --tables 2,1`` says that A and B were
labelled at one table and C at the fit of those two (a round of fictitious play fits them
together), so that the model's docstring chains the fit between. Whether a round is kept is
decided by paired matches (``python -m bench.tune --moves``), and written down in
``bench/results/tuning.md``.
"""

from __future__ import annotations

import argparse
import functools
import re
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from bench.search import SearchPlayer
from bench.train_bombs import (
    blended,
    boost_on_top,
    committed_commands,
    fit_trees,
    held_out,
    made_with,
    model_source,
    read_rows,
    write_rows,
)
from bot.cli.simulate import decide, new_game, next_actor
from bot.game.common import Combo, SeatView
from bot.game.paowang import Game
from bot.game.players import AiPlayer, Player
from bot.game.players.base import legal_options, revealed_self
from bot.game.players.decompose import counts_of
from bot.game.players.lookahead import view_seed
from bot.game.players.paowang_ai import PaowangAI, Tuning, cards_unseen
from bot.game.players.paowang_moves import (
    COMMITTED,
    MOVES,
    Position,
    allowed,
    inputs_of,
    position_of,
)
from bot.game.players.sampling import candidates, pick
from bot.game.players.trees import TreeModel

MODEL_FILE = Path(__file__).resolve().parent.parent / "bot/game/players/paowang_move_model.py"
#: deals of this range are the training set; bench.players and bench.tune use others
DEAL_OFFSET = 800_000
POLICIES = {"heuristic": Tuning(learned_moves=False), "model": Tuning(learned_moves=True)}
#: a label's decimals as stored (a hundredth of a thousandth of a point: far under its noise)
LABEL_DIGITS = 5
#: the heuristic's choice, the reference every label is measured from
HEURISTIC = PaowangAI(tuning=POLICIES["heuristic"])


#: the decisions ``collect --focus`` labels, as (situation, the heuristic's choice): where the
#: labels of round 11's table saw room (``bench.label_room``; ``tuning.md``, 2026-12-06):
#: answering a foe's trick with a play or a bomb, and leading; about half the decisions
FOCUS = frozenset({
    ("follow foe", "play"), ("follow foe", "bomb"), ("lead", "play"), ("lead", "bomb"),
})


def situation(view: SeatView) -> str:
    """Leading, or following a trick a partner or a foe holds now."""
    played = [seat for seat, combo in view.trick if combo is not None]
    if not played:
        return "lead"
    return "follow partner" if played[-1] in view.partners else "follow foe"


def labelled_here(
    view: SeatView, choice: Combo | None, focus: bool, leads_above: int | None
) -> bool:
    """Whether ``collect`` labels this decision: every one, or with ``focus`` only those of
    :data:`FOCUS`, and with ``leads_above`` only leads while more than that many cards are left
    in the five hands (where the search gains most now, ``tuning.md``)."""
    if focus and (situation(view), kind_of(choice)) not in FOCUS:
        return False
    return leads_above is None or (
        situation(view) == "lead" and sum(view.hand_sizes) > leads_above
    )


def kind_of(move: Combo | None) -> str:
    if move is None:
        return "pass"
    return "bomb" if move.tier else "play"


def position_at(view: SeatView) -> Position:
    """The position the move model reads for the seat whose view is ``view``."""
    return position_of(view, counts_of(view.hand), cards_unseen(view), revealed_self(view))


def model_shortlist(view: SeatView, moves: Sequence[Combo | None], keep: int) -> list[Combo | None]:
    """The heuristic's choice (``moves[0]``) and the ``keep`` - 1 other moves the committed
    trees expect most of (moves they may not take left out): the moves the bot would weigh,
    so that labels spent on them say where it is wrong."""
    position = position_at(view)
    expected = [
        (COMMITTED.expected_gain(inputs), index)
        for index, (move, inputs) in enumerate(
            zip(moves[1:], inputs_of(position, moves), strict=True), start=1
        )
        if allowed(position, move)
    ]
    best = sorted(expected, key=lambda pair: (-pair[0], pair[1]))[: keep - 1]
    return [moves[0], *(moves[index] for _, index in sorted(best, key=lambda pair: pair[1]))]


def record_of_deal(
    deal: int, seed: int, samples: int, policy: str = "heuristic", rollout: str = "heuristic",
    belief: int = 1, focus: bool = False, keep: int = MOVES, leads_above: int | None = None,
) -> dict[str, Any]:
    """One deal labelled, as it is stored: the deal's actions and, at every decision with a
    choice, the moves (their cards) with their labels. The trees' inputs are not stored: they
    are read again from a replay (:func:`expand`), so that a file stays small enough to keep
    in the repository and new features can be tried on old labels without labelling again.

    ``focus``: only the decisions of :data:`FOCUS`; ``keep`` under :data:`MOVES`: only the
    heuristic's choice and the committed trees' best ``keep`` - 1 moves
    (:func:`model_shortlist`); ``leads_above``: only leads with more than that many cards left
    (:func:`labelled_here`). All spend the play-outs where the room is: several times the
    decisions of those kinds for the same time."""
    game = new_game("paowang", seed * 1_000_003 + DEAL_OFFSET + deal)
    tuning = POLICIES[policy]
    players = [AiPlayer(seat, paowang_tuning=tuning) for seat in range(game.seats)]
    search = SearchPlayer(
        deal, samples=samples,
        rollout=AiPlayer(deal, lookahead=False, paowang_tuning=POLICIES[rollout]),
        belief=belief,
    )
    actions: list[list[Any]] = []
    decisions: list[dict[str, Any]] = []
    while not game.over:
        seat = next_actor(game)
        assert seat is not None
        view = game.view(seat)
        if not view.reveal_pending:
            choice = HEURISTIC.heuristic_choice(view)
            moves = candidates(view, choice, MOVES)
            last = choice is not None and len(choice.cards) == len(view.hand)
            if not labelled_here(view, choice, focus, leads_above):
                moves = moves[:1]
            elif keep < len(moves) and not last:
                moves = model_shortlist(view, moves, keep)
            if len(moves) > 1 and not last:
                scores = search.scores(view, moves)
                if scores is not None:
                    gains, errors = [], []
                    for index in range(1, len(moves)):
                        differences = [row[index] - row[0] for row in scores]
                        gains.append(round(statistics.fmean(differences), LABEL_DIGITS))
                        errors.append(round(
                            statistics.stdev(differences) / len(differences) ** 0.5, LABEL_DIGITS
                        ))
                    decisions.append({
                        "step": len(actions), "view": view_seed(view),
                        "moves": [cards_of(move) for move in moves],
                        "gains": gains, "errors": errors,
                    })
        actions.append(act(players[seat], game, seat, view))
    return {
        "deal": deal, "seed": seed, "samples": samples, "policy": policy, "rollout": rollout,
        "belief": belief, **({"focus": True} if focus else {}),
        **({"keep": keep} if keep < MOVES else {}),
        **({"leads_above": leads_above} if leads_above is not None else {}),
        "actions": actions, "decisions": decisions,
    }


def cards_of(move: Combo | None) -> list[int] | None:
    return None if move is None else sorted(int(card) for card in move.cards)


def act(player: Player, game: Game, seat: int, view: SeatView) -> list[Any]:
    """``player``'s action for ``seat`` (whose view is ``view``, taken before it acts), taken
    by :func:`decide` and written down as the game recorded it."""
    decide(player, game, seat)
    if view.reveal_pending:
        return ["reveal", seat, game.revealed[seat]]
    _, combo = game.history[-1]
    if combo is None:
        return ["pass", seat]
    # in the order played: the history (and so the view a replay checks) keeps that order
    return ["play", seat, [int(card) for card in combo.cards]]


def redo(game: Game, action: Sequence[Any]) -> None:
    """An action written down by :func:`act`, taken again."""
    kind, seat, *rest = action
    if kind == "reveal":
        game.reveal(seat, rest[0])
    elif kind == "pass":
        game.pass_turn(seat)
    else:
        # the hand's own cards (two decks' equal cards are one value: either will do)
        held = {int(card): card for card in game.hands[seat]}
        game.play(seat, [held[card] for card in rest[0]])


#: how the trees read a decision's moves: ``(position, moves) -> inputs of moves[1:]``
Reader = Callable[[Position, Sequence[Combo | None]], list[tuple[float, ...]]]


def expand(record: dict[str, Any], read: Reader = inputs_of) -> list[dict[str, Any]]:
    """A stored deal's decisions as the trees read them: the deal replayed to each decision,
    the moves and the position read by today's :mod:`bot.game.players.paowang_moves` (or by
    ``read``, to try other features on the same labels). Raises
    ValueError if the replay does not reach the position that was labelled (the engine dealt
    or ruled otherwise than when the file was written)."""
    game = new_game("paowang", record["seed"] * 1_000_003 + DEAL_OFFSET + record["deal"])
    meta = {key: value for key, value in record.items() if key not in ("actions", "decisions")}
    actions = record["actions"]
    done = 0
    rows: list[dict[str, Any]] = []
    for decision in record["decisions"]:
        while done < decision["step"]:
            redo(game, actions[done])
            done += 1
        seat = next_actor(game)
        assert seat is not None
        view = game.view(seat)
        if view_seed(view) != decision["view"]:
            raise ValueError(f"deal {record['deal']}: the replay left the labelled game")
        options = {tuple(cards_of(combo) or ()): combo for combo in legal_options(view)}
        moves = [None if cards is None else options[tuple(cards)] for cards in decision["moves"]]
        position = position_at(view)
        rows.append({
            **meta,
            "inputs": read(position, moves),
            "allowed": [allowed(position, move) for move in moves[1:]],
            "gains": decision["gains"], "errors": decision["errors"],
        })
    return rows


def read_labels(paths: Sequence[Path], read: Reader = inputs_of) -> list[dict[str, Any]]:
    """The labelled decisions of ``paths``: stored deals (:func:`record_of_deal`) expanded,
    and the first rounds' files, which hold the inputs themselves, as they are."""
    rows: list[dict[str, Any]] = []
    for line in read_rows(paths):
        if "actions" not in line:
            rows.append(line)
            continue
        tags = {"file": line["file"], "group": line["group"]}
        rows.extend({**row, **tags} for row in expand(line, read))
    return rows


def collect(
    deals: int,
    seed: int,
    samples: int,
    policy: str,
    rollout: str,
    jobs: int,
    out: Path,
    first: int = 0,
    belief: int = 1,
    focus: bool = False,
    keep: int = MOVES,
    leads_above: int | None = None,
) -> int:
    """Label deals ``first`` to ``deals`` - 1 (``first``: to continue a run that stopped,
    whose file holds the deals before it, in a second file), one line per deal
    (:func:`record_of_deal`); how many decisions."""
    work = functools.partial(
        _stored, seed=seed, samples=samples, policy=policy, rollout=rollout, belief=belief,
        focus=focus, keep=keep, leads_above=leads_above,
    )
    return write_rows(
        work, deals, jobs, out, first, size=lambda record: len(record["decisions"])
    )


def _stored(deal: int, **labelling: Any) -> list[dict[str, Any]]:
    """One line per deal (``write_rows`` writes what this returns, line by line)."""
    return [record_of_deal(deal, **labelling)]


def collected_by(name: str, rows: Sequence[dict[str, Any]]) -> str:
    deals = max(row["deal"] for row in rows) + 1
    first = min(row["deal"] for row in rows)
    return (
        f"python -m bench.train_moves collect --deals {deals} --seed {rows[0]['seed']} "
        f"--samples {rows[0]['samples']} --policy {rows[0]['policy']} "
        f"--rollout {rows[0].get('rollout', 'heuristic')}"
        + (f" --belief {rows[0]['belief']}" if rows[0].get("belief", 1) > 1 else "")
        + (" --focus" if rows[0].get("focus") else "")
        + (f" --keep {rows[0]['keep']}" if "keep" in rows[0] else "")
        + (f" --leads-above {rows[0]['leads_above']}" if "leads_above" in rows[0] else "")
        + (f" --first-deal {first}" if first else "")
        + f" --out {name}"
    )


#: the boosting's settings: deeper trees than the bomb model's, the decisions being of many
#: kinds (offline, on held-out deals, depth 5 gained more than depth 3 or 4)
TREES = 300
DEPTH = 5
MIN_LEAF = 20
#: trees ``fit --on-top`` adds: half a round's, so that a decision stays as quick
TREES_ON_TOP = 150


def fit(
    rows: Sequence[dict[str, Any]], trees: int = TREES, depth: int = DEPTH,
    min_leaf: int = MIN_LEAF, start: TreeModel | None = None, step: float = 1.0,
    loss: str = "squared_error", weighted: bool = False,
) -> TreeModel:
    """Trees fitted to every move's label; with ``start``, :data:`TREES_ON_TOP` more boosted
    on top of it (``bench.train_bombs.boost_on_top``), their leaves scaled by ``step``;
    ``loss`` as ``bench.train_bombs.fit_trees`` takes it; ``weighted``: each label counted by
    how sure it is (:func:`label_weights`)."""
    inputs = [move for row in rows for move in row["inputs"]]
    labels = [gain for row in rows for gain in row["gains"]]
    weights = label_weights(rows, start) if weighted else None
    if start is None:
        return fit_trees(
            inputs, labels, trees=trees, depth=depth, min_leaf=min_leaf, loss=loss,
            weights=weights,
        )
    return boost_on_top(
        start, inputs, labels, step, trees=TREES_ON_TOP, depth=depth, min_leaf=min_leaf,
        loss=loss, weights=weights,
    )


def shape_flags(depth: int, loss: str, weighted: bool, trees: int = TREES) -> str:
    """A fit's own flags for its recipe, those that differ from the defaults."""
    return (f" --trees {trees}" if trees != TREES else "") + (
        f" --depth {depth}" if depth != DEPTH else ""
    ) + (f" --loss {loss}" if loss != "squared_error" else "") + (
        " --weighted" if weighted else ""
    )


#: the least spread of the moves' worth a weighted fit assumes (points²): a floor, so that
#: labels whose standard errors explain all their spread do not weigh without bound
LEAST_WORTH_SPREAD: Final = 0.5


def label_weights(rows: Sequence[dict[str, Any]], start: TreeModel | None = None) -> list[float]:
    """Each label's weight as an estimate of its move's worth, ``1 / (se² + τ²)``
    (weighted least squares): ``se`` its standard error from the paired play-outs, ``τ²``
    the spread of the worth itself, what the labels vary beyond ``start``'s predictions less
    their mean squared standard error (at least :data:`LEAST_WORTH_SPREAD`). A label
    loosened by play-outs that swing between won and lost games counts less than a sure
    one; the weights are scaled to average 1."""
    errors = [error for row in rows for error in row["errors"]]
    left = [
        gain - (0.0 if start is None else start.expected_gain(inputs))
        for row in rows for inputs, gain in zip(row["inputs"], row["gains"], strict=True)
    ]
    worth_spread = max(
        statistics.pvariance(left) - statistics.fmean(e * e for e in errors), LEAST_WORTH_SPREAD
    )
    raw = [1.0 / (error * error + worth_spread) for error in errors]
    mean = statistics.fmean(raw)
    return [weight / mean for weight in raw]


def picked_gains(rows: Sequence[dict[str, Any]], chosen: Sequence[int]) -> list[float]:
    """The label of each decision's pick (0 where the pick is the heuristic's own choice)."""
    return [
        row["gains"][pick - 1] if pick else 0.0 for row, pick in zip(rows, chosen, strict=True)
    ]


def picks(model: TreeModel, rows: Sequence[dict[str, Any]], margin: float) -> list[int]:
    """For each decision, the move the trees take (0: the heuristic's choice)."""
    return [
        pick(
            [
                model.expected_gain(inputs) if ok else None
                for inputs, ok in zip(row["inputs"], row["allowed"], strict=True)
            ],
            margin,
        )
        for row in rows
    ]


def report(
    train: Sequence[dict[str, Any]], held: Sequence[dict[str, Any]],
    start: TreeModel | None = None, step: float = 1.0, blend: float | None = None, *,
    trees: int = TREES, depth: int = DEPTH, loss: str = "squared_error", weighted: bool = False,
) -> None:
    """What taking each model's pick gains on the held-out decisions, by their labels: the
    trees fitted (on top of ``start`` when given), the committed model averaged with them
    (``blend`` of the way to them, when given), and ``start`` itself; ``trees`` of depth
    ``depth`` fitted alone; ``loss`` and ``weighted`` as :func:`fit` takes them."""
    fitted = fit(train, trees, depth, start=start, step=step, loss=loss, weighted=weighted)
    models = [("the trees", fitted)]
    if blend is not None:
        models.append((f"the blend {blend:g}", blended(COMMITTED, fitted, blend)))
    if start is not None:
        models.append(("the start", start))
    print(f"{len(train)} decisions to fit, {len(held)} held out")
    hindsight = statistics.fmean(max([0.0, *row["gains"]]) for row in held)
    print(f"  hindsight (the labels' best, biased up)  gain {hindsight:+.3f} points a decision")
    for name, model in models:
        for margin in (0.0, 0.25, 0.5, 1.0, 1.5):
            chosen = picks(model, held, margin)
            gain = statistics.fmean(picked_gains(held, chosen))
            changed = sum(1 for pick in chosen if pick) / len(held)
            print(f"  {name}, margin {margin:4.2f}: change {changed:5.1%}  gain {gain:+.3f} "
                  "points a decision")


def committed_decisions(path: Path = MODEL_FILE) -> int:
    """How many labelled decisions the model in ``path`` was fitted to (its docstring says)."""
    found = re.search(r"of\s+(\d+)\s+decisions", path.read_text())
    assert found, f"{path} does not say how many decisions made it"
    return int(found.group(1))


def write(
    model: TreeModel, commands: Sequence[str], decisions: int, path: Path = MODEL_FILE
) -> None:
    summary = [
        "The 刨王 AI's move model: what a move gains over the heuristic's choice, in points,",
        "is MOVE_BASE plus one leaf of every tree, found from the move's inputs (MOVE_FEATURES in",
        "paowang_moves). Fitted by ``bench/train_moves.py`` to paired play-outs of",
        f"{decisions} decisions; made with::",
    ]
    path.write_text(model_source(summary, commands, "MOVE", model))


def _sizes(text: str) -> list[int]:
    """``--tables 2,1``: whole numbers, comma separated (``made_with`` checks them against the
    files)."""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of counts (2,1)") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train_moves", description=__doc__)
    steps = parser.add_subparsers(dest="step", required=True)
    gather = steps.add_parser("collect")
    gather.add_argument("--deals", type=int, default=100)
    gather.add_argument("--seed", type=int, default=21)
    gather.add_argument("--samples", type=int, default=12)
    gather.add_argument("--policy", choices=sorted(POLICIES), default="heuristic")
    gather.add_argument("--rollout", choices=sorted(POLICIES), default="heuristic")
    gather.add_argument("--jobs", type=int, default=1)
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument(
        "--belief", type=int, default=1,
        help="agreeing deals drawn per sample, one kept by the likelihood of the seen plays",
    )
    gather.add_argument(
        "--first-deal", type=int, default=0,
        help="start at this deal: continue a run that stopped (its file has the deals before)",
    )
    gather.add_argument(
        "--focus", action="store_true",
        help="label only answers to a foe's trick with a play or a bomb, and leads",
    )
    gather.add_argument(
        "--keep", type=int, default=MOVES,
        help="label only the heuristic's choice and the committed model's best KEEP - 1 moves",
    )
    gather.add_argument(
        "--leads-above", type=int, default=None, metavar="CARDS",
        help="label only leads while more than CARDS cards are left in the five hands",
    )
    fitting = steps.add_parser("fit")
    fitting.add_argument("files", type=Path, nargs="+")
    fitting.add_argument("--write", action="store_true")
    fitting.add_argument(
        "--on-top", action="store_true",
        help="keep the bot's trees and boost more on them, fitted to what they leave unexplained",
    )
    fitting.add_argument(
        "--one-table", action="store_true",
        help="the files labelled with --policy model were all collected at a table of the "
        "bot's model (more labels for one round), not each at the fit of the files before it",
    )
    fitting.add_argument(
        "--tables", type=_sizes, default=None, metavar="N,N,...",
        help="how many of the files labelled with --policy model were collected at each "
        "table, in order (2,1: two at the bot's model, the third at the fit of those two); "
        "by default each at the fit of the files before it",
    )
    fitting.add_argument(
        "--step", type=float, default=1.0,
        help="with --on-top: scale what the new trees add (1: all of it)",
    )
    fitting.add_argument(
        "--blend", type=float, default=None, metavar="WEIGHT",
        help="the bot's model averaged with the trees fitted alone, WEIGHT of the way to "
        "them (0.5: half and half)",
    )
    fitting.add_argument(
        "--trees", type=int, default=TREES, help="trees fitted alone: how many (not --on-top)"
    )
    fitting.add_argument("--depth", type=int, default=DEPTH, help="the trees' depth")
    fitting.add_argument(
        "--loss", choices=("squared_error", "huber"), default="squared_error",
        help="the trees' loss (huber: a few lost games of many points steer the leaves less)",
    )
    fitting.add_argument(
        "--weighted", action="store_true",
        help="each label counted by how sure it is (label_weights: weighted least squares)",
    )
    fitting.add_argument(
        "--model-out", type=Path, default=MODEL_FILE,
        help="where --write writes the model (default: the bot's, "
        "bot/game/players/paowang_move_model.py)",
    )
    args = parser.parse_args(argv)
    if args.step == "collect":
        if not 2 <= args.keep <= MOVES:
            parser.error(f"--keep counts the moves labelled, the heuristic's too: 2 to {MOVES}")
        count = collect(
            args.deals, args.seed, args.samples, args.policy, args.rollout, args.jobs, args.out,
            args.first_deal, args.belief, args.focus, args.keep, args.leads_above,
        )
        print(f"{count} decisions from {args.deals} deals in {args.out}")
        return 0
    if args.step != 1.0 and not args.on_top:
        parser.error("--step scales trees added on top: give --on-top")
    if args.blend is not None and (args.on_top or not 0.0 < args.blend < 1.0):
        parser.error("--blend takes a weight between 0 and 1, and trees fitted alone")
    if args.tables is not None and (args.one_table or args.on_top or args.blend is not None):
        parser.error("--tables says where trees fitted alone were labelled: not with "
                     "--one-table, --on-top or --blend")
    if args.on_top and args.trees != TREES:
        parser.error("--trees counts trees fitted alone: trees on top are always "
                     f"{TREES_ON_TOP}")
    if args.blend is not None and (args.loss != "squared_error" or args.weighted):
        parser.error("--loss and --weighted shape trees fitted alone or on top, not --blend")
    shape = shape_flags(args.depth, args.loss, args.weighted, args.trees)
    rows = read_labels(args.files)
    try:  # before the fits, so that tables that do not add up stop it at once
        commands = made_with(
            "bench.train_moves", args.files, rows, collected_by,
            table=committed_commands(MODEL_FILE), on_top=args.step if args.on_top else None,
            one_table=args.one_table, blend=args.blend, tables=args.tables, shape=shape,
        )
    except ValueError as error:
        parser.error(str(error))
    start = COMMITTED if args.on_top else None
    report(
        *held_out(rows), start, args.step, args.blend, trees=args.trees, depth=args.depth,
        loss=args.loss, weighted=args.weighted,
    )
    if args.write:
        keeps_committed = start is not None or args.blend is not None
        decisions = len(rows) + (committed_decisions() if keeps_committed else 0)
        model = fit(
            rows, args.trees, args.depth, start=start, step=args.step, loss=args.loss,
            weighted=args.weighted,
        )
        if args.blend is not None:
            model = blended(COMMITTED, model, args.blend)
        write(model, commands, decisions, args.model_out)
        print(f"model of {len(model.trees)} trees written to {args.model_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
