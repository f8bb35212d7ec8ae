"""Fits the 刨王 AI's bomb-or-pass model to the search player's play-outs:
``python -m bench.train_bombs collect --deals N --seed S --jobs J --out FILE``, then
``python -m bench.train_bombs fit FILE... [--write]`` (needs scikit-learn, in the test extra).

``collect`` plays deals with the bot's AI in all five seats, its bombs decided by the
hand-written rules (``--policy rules``) or by the model in the repository (``--policy
model``). At every bomb question (a trick of a seat not known to be a partner, no
ordinary answer the AI would play, a bomb in hand:
:meth:`bot.game.players.paowang_ai.PaowangAI.bomb_question`) it samples deals that agree with
what the seat has seen and plays both answers out, as the search player does
(:mod:`bench.search`): on the same samples, with the same policy in every seat afterwards. The
question's label is what bombing gained over passing, in points for the seat, averaged over
the samples. One JSON line per question. ``--belief N`` draws N agreeing deals for each sample
and keeps one by how likely the others' actions so far were in it under the play-outs' policy
(:func:`bot.game.players.sampling.believe`): a pass or a bomb says something of a hand.

``fit`` boosts small regression trees (scikit-learn's GradientBoostingRegressor) on the
labels, from the question's inputs (:data:`bot.game.players.paowang_bombs.BOMB_FEATURES`). It
holds a fifth of the deals out and prints, on them, what bombing by the model gains over
bombing by the rules, by the labels (the search's own, noisy estimate). ``--write`` fits again
on every question and writes the trees as plain tuples to
``bot/game/players/paowang_bomb_model.py`` (or ``--model-out``), which the bot reads without
scikit-learn. ``fit --on-top`` keeps the bot's trees and boosts more on top of them, fitted to
what they leave unexplained: a round labelled at a table of today's AI then adds to what the
earlier rounds' labels taught, without those files; ``--step 0.5`` adds half of what those
trees say (the labels answer a table of the committed model, and a whole answer overshoots). Both
steps are deterministic for their arguments: that file's docstring holds the command lines
that made it.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import itertools
import json
import re
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TextIO

from bench.search import SearchPlayer
from bot.cli.simulate import decide, new_game, next_actor
from bot.game.players import AiPlayer
from bot.game.players.paowang_ai import PaowangAI, Tuning
from bot.game.players.paowang_bomb_model import Tree
from bot.game.players.paowang_bombs import COMMITTED_BOMBS, model_inputs
from bot.game.players.trees import TreeModel

MODEL_FILE = Path(__file__).resolve().parent.parent / "bot/game/players/paowang_bomb_model.py"
#: deals of this seed's range are the training set; bench.players uses other ranges
DEAL_OFFSET = 900_000
#: how every seat decides its bombs while questions are asked and labelled: by the
#: hand-written rules (labels independent of any model), or by the model in the repository
#: (a second round, fitted to how the table plays once the model is in it)
POLICIES = {"rules": Tuning(learned_bombs=False), "model": Tuning(learned_bombs=True)}


def questions_of_deal(
    deal: int, seed: int, samples: int, policy: str = "rules", belief: int = 1
) -> list[dict[str, Any]]:
    """Every bomb question of one all-AI deal, labelled by paired play-outs."""
    game = new_game("paowang", seed * 1_000_003 + DEAL_OFFSET + deal)
    tuning = POLICIES[policy]
    players = [AiPlayer(seat, paowang_tuning=tuning) for seat in range(game.seats)]
    asker = PaowangAI(tuning=tuning)
    rollout = AiPlayer(deal, lookahead=False, paowang_tuning=tuning)
    search = SearchPlayer(deal, samples=samples, rollout=rollout, belief=belief)
    found: list[dict[str, Any]] = []
    while not game.over:
        seat = next_actor(game)
        assert seat is not None
        view = game.view(seat)
        question = None if view.reveal_pending else asker.bomb_question(view)
        if question is not None:
            scores = search.scores(view, [None, question.bomb])
            if scores is not None:
                found.append({
                    "deal": deal,
                    "seed": seed,
                    "samples": samples,
                    "policy": policy,
                    "belief": belief,
                    "features": question.features,
                    "gain": sum(row[1] - row[0] for row in scores) / samples,
                    "rule": question.rule,
                })
        decide(players[seat], game, seat)
    return found


def collect(
    deals: int, seed: int, samples: int, policy: str, jobs: int, out: Path, belief: int = 1,
    first: int = 0,
) -> int:
    """Label deals ``first`` to ``deals`` - 1 (``first``: to continue a run that stopped, whose
    file holds the deals before it); how many questions."""
    work = functools.partial(
        questions_of_deal, seed=seed, samples=samples, policy=policy, belief=belief
    )
    return write_rows(work, deals, jobs, out, first)


def write_rows(
    work: Callable[[int], list[dict[str, Any]]],
    deals: int,
    jobs: int,
    out: Path,
    first: int = 0,
    size: Callable[[dict[str, Any]], int] = lambda row: 1,
) -> int:
    """``work(deal)`` for deals ``first`` to ``deals`` - 1 in ``jobs`` processes, its rows
    written to ``out`` as JSON lines in deal order (flushed deal by deal: a run stopped early
    leaves a file of whole deals, and ``first`` continues it in another file); how many
    rows, or the sum of ``size`` over them. A name ending in ``.gz`` is written gzipped (as
    ``bench/labels/`` keeps them)."""
    count = 0
    with _writing(out) as file, ProcessPoolExecutor(jobs) as pool:
        for found in pool.map(work, range(first, deals)):
            for row in found:
                file.write(json.dumps(row) + "\n")
            count += sum(size(row) for row in found)
            file.flush()
    return count


def _writing(out: Path) -> TextIO:
    return gzip.open(out, "wt") if out.suffix == ".gz" else out.open("w")


def collected_by(name: str, rows: Sequence[dict[str, Any]]) -> str:
    """The command line that collected the file ``name`` (from what its rows say of
    themselves)."""
    deals = max(row["deal"] for row in rows) + 1
    drawn = rows[0].get("belief", 1)
    belief = f"--belief {drawn} " if drawn > 1 else ""
    first = min(row["deal"] for row in rows)
    start = f"--first-deal {first} " if first else ""
    return (
        f"python -m bench.train_bombs collect --deals {deals} --seed {rows[0]['seed']} "
        f"--samples {rows[0]['samples']} --policy {rows[0].get('policy', 'rules')} "
        f"{belief}{start}--out {name}"
    )


def _lines(path: Path) -> list[str]:
    """The whole lines of a file of JSON lines, gzipped or not. A gzipped file whose run
    stopped early ends mid-stream: the deals flushed before that are read, the rest is not."""
    if path.suffix != ".gz":
        return path.read_text().splitlines()
    lines: list[str] = []
    with gzip.open(path, "rt") as file, contextlib.suppress(EOFError):
        for line in file:
            lines.append(line)
    return [line.rstrip("\n") for line in lines if line.endswith("\n")]


def read_rows(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """The JSON lines of ``paths``, each tagged with its file and its deal's group (the unit
    held out together)."""
    rows = []
    for number, path in enumerate(paths):
        for line in _lines(path):
            row = json.loads(line)
            row["file"] = number
            row["group"] = number * 100_003 + row["deal"]  # files from other seeds reuse deals
            rows.append(row)
    return rows


def held_out(
    rows: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(to fit, held out): a fifth of the deals held out, all of a deal's rows together."""
    return (
        [row for row in rows if row["group"] % 5 != 0],
        [row for row in rows if row["group"] % 5 == 0],
    )


def made_with(
    script: str, paths: Sequence[Path], rows: Sequence[dict[str, Any]],
    collected_by: Callable[[str, Sequence[dict[str, Any]]], str], *, refits: bool = True,
    table: Sequence[str] = (), on_top: float | None = None, one_table: bool = False,
    blend: float | None = None, tables: Sequence[int] | None = None, shape: str = "",
) -> list[str]:
    """The command lines that made a model from ``paths``, in order: each file's collection,
    preceded by the fit it played by when it was collected at a table of the model (unless
    ``refits`` is off: the table's model is not the one fitted here). ``tables`` says how many
    of the files collected at a table of the model were collected at each table, in order
    (``2, 1``: two at one table, the third at the fit of those two); by default each at its
    own. A table is the fit of the files before it, or, when no file comes before it, the
    repository's model, so ``table``, the commands that made that, come first then. When
    the repository's model was made from the first files (their collections stand in
    ``table``), its history stands for them and the model is the next table, so that a refit
    with one more file adds that file's collection and the fit, and each command stands once;
    its history up to the file's collection, when they do not end where a table opens.
    ``one_table`` is all such files at one table (more labels for the same round). With
    ``on_top`` (the step) the model is the repository's with trees boosted on it, and with
    ``blend`` (the weight) the repository's averaged with a fit of the files: either way
    ``table`` first, the collections, the fit. ``shape`` is the last fit's own flags (its
    trees' number and depth, its loss, when not the defaults)."""
    keeps_committed = on_top is not None or blend is not None
    refits = refits and not keeps_committed
    collections = [
        collected_by(path.name, [row for row in rows if row["file"] == number])
        for number, path in enumerate(paths)
    ]
    played = sum("--policy model" in command for command in collections)
    sizes = list(tables) if tables is not None else [1] * played
    if one_table and played:
        sizes = [played]
    if refits and (sum(sizes) != played or min(sizes, default=1) < 1):
        raise ValueError(
            f"the tables' sizes {sizes} do not add up to the {played} files collected at a "
            "table of the model"
        )
    # which table each opening file opens, the files counted as they come to a table
    starts = list(itertools.accumulate([0, *sizes[:-1]])) if sizes else []
    opening = dict(zip(starts, range(len(sizes)), strict=True))
    carried = _carried(collections, table, set(opening)) if refits else 0
    commands: list[str] = [*table] if carried or keeps_committed else []
    earlier: list[str] = []
    seen = 0  # files collected at a table of the model so far
    for index, (path, command) in enumerate(zip(paths, collections, strict=True)):
        if refits and "--policy model" in command:
            if carried and index <= carried:
                pass  # the repository's history made these tables, and the next
            elif seen in opening and earlier:
                flags = _tables_flag(sizes[: opening[seen]])
                commands.append(f"python -m {script} fit {' '.join(earlier)}{flags} --write")
            elif seen in opening:
                commands += _history_before(table, command)
            seen += 1
        if index >= carried:
            commands.append(command)
        earlier.append(path.name)
    flags = " --one-table" if one_table else _tables_flag(sizes) if refits else ""
    if on_top is not None:
        flags += " --on-top" + (f" --step {on_top:g}" if on_top != 1.0 else "")
    if blend is not None:
        flags += f" --blend {blend:g}"
    flags += shape
    commands.append(f"python -m {script} fit {' '.join(earlier)}{flags} --write")
    # a refit of the files the repository's model was made from ends on that model's own fit
    return list(dict.fromkeys(commands))


def _tables_flag(sizes: Sequence[int]) -> str:
    """How a fit is told the tables its files were collected at: nothing when each was at its
    own, else ``--tables 2,1``."""
    if all(size == 1 for size in sizes):
        return ""
    return " --tables " + ",".join(str(size) for size in sizes)


def load(paths: Sequence[Path]) -> list[dict[str, Any]]:
    rows = read_rows(paths)
    for row in rows:
        row["inputs"] = model_inputs(row["features"], row["rule"])
    return rows


#: the trees' losses a fit takes (scikit-learn's names; huber: the labels' far tails weigh less)
LOSSES = ("squared_error", "huber")
#: the boosting's settings: small trees, few, so that a decision stays well under a millisecond
TREES = 100
DEPTH = 3
LEARNING_RATE = 0.05
MIN_LEAF = 40


def fit(
    rows: Sequence[dict[str, Any]], start: TreeModel | None = None, step: float = 1.0,
    loss: str = "squared_error",
) -> TreeModel:
    """Trees fitted to the labels; with ``start``, more trees boosted on top of that model
    (fitted to what it leaves unexplained), its own trees kept as they are: a round labelled
    at a table of today's model adds to what earlier rounds' labels taught it, when those
    labels are no longer at hand. ``step`` scales what the new trees add: the labels say
    how to answer a table of ``start``, and a table of the answer is another table (a full
    step answers it too well: ``bench/results/tuning.md``), so a part of the way, as
    fictitious play averages an answer with what it answers. ``loss`` as :func:`fit_trees`
    takes it."""
    inputs = [row["inputs"] for row in rows]
    labels = [row["gain"] for row in rows]
    if start is None:
        return fit_trees(inputs, labels, loss=loss)
    return boost_on_top(start, inputs, labels, step, loss=loss)


def boost_on_top(
    start: TreeModel, inputs: Sequence[Sequence[float]], labels: Sequence[float],
    step: float = 1.0, **settings: Any,
) -> TreeModel:
    """``start`` with more trees (:func:`fit_trees` with ``settings``) fitted to what it
    leaves unexplained of the labels, their leaves scaled by ``step``."""
    left = [label - start.expected_gain(x) for x, label in zip(inputs, labels, strict=True)]
    more = fit_trees(inputs, left, **settings)
    return TreeModel(round(start.base + step * more.base, 6), start.trees + scaled(more, step))


def scaled(model: TreeModel, by: float) -> tuple[Tree, ...]:
    """``model``'s trees with every leaf multiplied by ``by`` (rounded as a model file is)."""
    return tuple(
        (features, thresholds, lefts, rights, tuple(round(leaf * by, 6) for leaf in leaves))
        for features, thresholds, lefts, rights, leaves in model.trees
    )


def blended(kept: TreeModel, fitted: TreeModel, weight: float) -> TreeModel:
    """``kept`` and ``fitted`` averaged, ``weight`` of the way to ``fitted``: both models' trees,
    their leaves scaled, so that what it says is that average wherever it is asked. A round's
    fit answers the table it was labelled at; a part of the way to it, as fictitious play
    averages an answer with what it answers, is another step than trees on top of ``kept``
    (which cannot undo what ``kept``'s own trees say)."""
    if not 0.0 < weight < 1.0:
        raise ValueError(f"a blend lies between the two models, not at {weight}")
    base = (1.0 - weight) * kept.base + weight * fitted.base
    return TreeModel(round(base, 6), scaled(kept, 1.0 - weight) + scaled(fitted, weight))


def committed_questions(path: Path = MODEL_FILE) -> int:
    """How many labelled questions the model in ``path`` was fitted to (its docstring says)."""
    found = re.search(r"on\s+(\d+)\s+questions", path.read_text())
    assert found, f"{path} does not say how many questions made it"
    return int(found.group(1))


def _carried(collections: Sequence[str], history: Sequence[str], openings: set[int]) -> int:
    """How many of the first files the repository's history already made its model from (their
    collections stand in it), when they end where a table opens or with the last file: the
    repository's model is then the next table, and its history stands for all of them."""
    carried = 0
    while carried < len(collections) and collections[carried] in history:
        carried += 1
    played = sum("--policy model" in command for command in collections[:carried])
    ends_a_table = carried == len(collections) or played in openings
    return carried if ends_a_table else 0


def _history_before(table: Sequence[str], collection: str) -> list[str]:
    """The commands of ``table`` that made the model ``collection`` was played by: all of
    them, unless the repository's model was itself fitted to that file, whose collection
    then stands in its history after the model it played by; only what comes before it is
    kept, so that a refit does not repeat the rounds it redoes."""
    return list(table[: table.index(collection)] if collection in table else table)


def committed_commands(path: Path = MODEL_FILE) -> list[str]:
    """The command lines that made the model in ``path`` (from its docstring), each once: the
    move model's docstrings of rounds 8 to 11 repeated their first rounds, which a refit would
    have run again at a later table."""
    lines = path.read_text().split('"""')[1].splitlines()
    commands = [line.strip() for line in lines if line.strip().startswith("python -m ")]
    return list(dict.fromkeys(commands))


def fit_trees(
    inputs: Sequence[Sequence[float]], labels: Sequence[float], *, trees: int = TREES,
    depth: int = DEPTH, min_leaf: int = MIN_LEAF, loss: str = "squared_error",
    weights: Sequence[float] | None = None,
) -> TreeModel:
    """Gradient-boosted regression trees (scikit-learn) of the labels on the inputs, read
    out into plain tuples (the bot does not import scikit-learn). ``loss="huber"`` weighs the
    labels' far tails less (scikit-learn's Huber loss, the top tenth of residuals linear);
    ``weights``, one a label, how much each counts (all alike unless given)."""
    import numpy as np
    from sklearn.ensemble import GradientBoostingRegressor

    x = np.array(inputs, dtype=float)
    y = np.array(labels, dtype=float)
    boosting = GradientBoostingRegressor(
        n_estimators=trees, max_depth=depth, learning_rate=LEARNING_RATE,
        min_samples_leaf=min_leaf, subsample=0.8, random_state=0, loss=loss,
    )
    boosting.fit(x, y, sample_weight=None if weights is None else np.array(weights, dtype=float))
    read: list[Tree] = []
    for (estimator,) in boosting.estimators_:
        tree = estimator.tree_
        read.append((
            tuple(int(f) if f >= 0 else -1 for f in tree.feature),
            tuple(round(float(t), 6) for t in tree.threshold),
            tuple(int(c) for c in tree.children_left),
            tuple(int(c) for c in tree.children_right),
            tuple(round(float(v) * LEARNING_RATE, 6) for v in tree.value[:, 0, 0]),
        ))
    base = float(boosting.init_.constant_[0, 0])
    return TreeModel(round(base, 6), tuple(read))


def model_source(
    summary: Sequence[str], commands: Sequence[str], prefix: str, model: TreeModel
) -> str:
    """A model file: its docstring (``summary``, then the commands that made it), then
    ``{prefix}_BASE`` and ``{prefix}_TREES`` as plain tuples."""
    lines = [
        '"""' + summary[0], *summary[1:],
        "",
        *(f"    {command}" for command in commands),
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
        "from bot.game.players.paowang_bomb_model import Tree",
        "",
        "#: the mean gain before any tree (points)",
        f"{prefix}_BASE = {model.base!r}",
        f"{prefix}_TREES: tuple[Tree, ...] = (",
        *tree_lines(model),
        ")",
    ]
    return "\n".join(lines) + "\n"


def tree_lines(model: TreeModel) -> list[str]:
    """The trees as lines of Python, one tree a line."""
    return [f"    {tree!r}," for tree in model.trees]


def policy_gain(rows: Sequence[dict[str, Any]], bombs: Sequence[bool]) -> float:
    """Mean gain per question of bombing where ``bombs`` says so, over always passing."""
    return sum(row["gain"] for row, bomb in zip(rows, bombs, strict=True) if bomb) / len(rows)


def report(
    train: Sequence[dict[str, Any]], held: Sequence[dict[str, Any]],
    start: TreeModel | None = None, step: float = 1.0, loss: str = "squared_error",
) -> None:
    """What each way of answering gains on the held-out questions, by their labels: the
    rules, the model fitted (on top of ``start`` when given), ``start`` itself."""
    fitted = fit(train, start, step, loss)
    rule = [bool(row["rule"]) for row in held]
    best = [row["gain"] > 0 for row in held]
    print(f"{len(train)} questions to fit, {len(held)} held out")
    ways = [
        ("never bomb", [False] * len(held)), ("always bomb", [True] * len(held)),
        ("the rules", rule),
    ]
    if start is not None:
        ways.append(("the model it starts from", [start.expected_gain(row["inputs"]) > 0
                                                 for row in held]))
    ways += [
        ("the model", [fitted.expected_gain(row["inputs"]) > 0 for row in held]),
        ("hindsight (the labels)", best),
    ]
    for name, bombs in ways:
        print(f"  {name:24} bombs {sum(bombs) / len(held):5.1%}  "
              f"gain {policy_gain(held, bombs):+.3f} points per question")


def write(
    model: TreeModel, commands: Sequence[str], questions: int, path: Path = MODEL_FILE
) -> None:
    lines = [
        '"""The 刨王 AI\'s bomb-or-pass model: what bombing gains over passing, in points, is',
        "BOMB_BASE plus one leaf of every tree, found from the question's inputs (BOMB_FEATURES in",
        "paowang_bombs). Fitted by ``bench/train_bombs.py`` to the search player's play-outs on",
        f"{questions} questions; made with::",
        "",
        *(f"    {command}" for command in commands),
        '"""',
        "",
        "# ruff: noqa: E501",
        "",
        "#: the mean gain before any tree (points)",
        f"BOMB_BASE = {model.base!r}",
        "#: a tree: feature index per node (-1: a leaf), threshold (go left when the input is at",
        "#: most that), left child, right child, leaf value (points, learning rate applied)",
        "Tree = tuple[tuple[int, ...], tuple[float, ...], tuple[int, ...], tuple[int, ...], "
        "tuple[float, ...]]",
        "BOMB_TREES: tuple[Tree, ...] = (",
    ]
    lines += [*tree_lines(model), ")"]
    path.write_text("\n".join(lines) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.train_bombs", description=__doc__)
    steps = parser.add_subparsers(dest="step", required=True)
    gather = steps.add_parser("collect")
    gather.add_argument("--deals", type=int, default=200)
    gather.add_argument("--seed", type=int, default=11)
    gather.add_argument("--samples", type=int, default=16)
    gather.add_argument("--policy", choices=sorted(POLICIES), default="rules")
    gather.add_argument(
        "--belief", type=int, default=1,
        help="agreeing deals drawn per sample, one kept by the likelihood of the seen plays",
    )
    gather.add_argument("--jobs", type=int, default=1)
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument(
        "--first-deal", type=int, default=0,
        help="start at this deal: continue a run that stopped (its file has the deals before)",
    )
    fitting = steps.add_parser("fit")
    fitting.add_argument("files", type=Path, nargs="+")
    fitting.add_argument("--write", action="store_true")
    fitting.add_argument(
        "--on-top", action="store_true",
        help="boost more trees on top of the bot's model instead of fitting anew",
    )
    fitting.add_argument(
        "--step", type=float, default=1.0,
        help="with --on-top: scale what the new trees add (1: all of it)",
    )
    fitting.add_argument(
        "--loss", choices=LOSSES, default="squared_error",
        help="the trees' loss (huber: the labels' far tails weigh less)",
    )
    fitting.add_argument(
        "--model-out", type=Path, default=MODEL_FILE,
        help="where --write writes the model (default: the bot's, "
        "bot/game/players/paowang_bomb_model.py)",
    )
    args = parser.parse_args(argv)
    if args.step == "collect":
        count = collect(
            args.deals, args.seed, args.samples, args.policy, args.jobs, args.out, args.belief,
            args.first_deal,
        )
        print(f"{count} questions from {args.deals} deals in {args.out}")
        return 0
    if args.step != 1.0 and not args.on_top:
        parser.error("--step scales trees added on top: give --on-top")
    rows = load(args.files)
    start = COMMITTED_BOMBS if args.on_top else None
    report(*held_out(rows), start, args.step, args.loss)
    if args.write:
        commands = made_with(
            "bench.train_bombs", args.files, rows, collected_by, table=committed_commands(),
            on_top=args.step if args.on_top else None,
            shape="" if args.loss == "squared_error" else f" --loss {args.loss}",
        )
        questions = len(rows) + (committed_questions() if start is not None else 0)
        write(fit(rows, start, args.step, args.loss), commands, questions, args.model_out)
        print(f"model written to {args.model_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
