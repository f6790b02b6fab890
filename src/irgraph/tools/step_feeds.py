"""Feeds of a stateful model's steps: a generate loop gives every step its own inputs.

Two layouts, both of ordinary ``.npz`` files keyed by input name:

* one ``.npz`` whose keys are ``stepK/NAME`` (K = 1..N): step K's data for input NAME; a key without
  ``stepK/`` is the data of every step (a mask or table that does not change);
* a folder of ``.npz`` files, one per step, taken in the order of the number in their names
  (``step1.npz``, ``step2.npz``, ... or ``0.npz``, ``1.npz``, ...): the first file is step 1.

Every step must give the same inputs, the steps must be 1..N without a gap, and an input is given
either for every step or per step, not both. What :func:`irgraph.tools.feeds.open_sources` and
:func:`irgraph.tools.feeds.load_feeds` check of one feed is checked of every step's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

import numpy as np

from irgraph.core.errors import FeedError, IrIOError, Location, printable
from irgraph.core.lazy import lazy_pattern
from irgraph.core.limits import MAX_STEPS
from irgraph.core.records import MutableRecord
from irgraph.core.shapes import Shape
from irgraph.graph import Model
from irgraph.io.data import npz
from irgraph.runtime.state import step_key
from irgraph.tools import feeds as feeds_lib
from irgraph.tools.feeds import Feed, FeedSource

__all__ = ["StepFeeds", "load_step_feeds", "open_step_sources"]

_STEP_KEY = re.compile(r"step([0-9]+)/(.+)", re.S)
_NUMBER = lazy_pattern(r"[0-9]+")
_MAX_STEP_DIGITS = 18
"""A step number longer than this is refused before it is read (there are never that many steps)."""


class StepFeeds(MutableRecord):
    """The feeds of every step: ``steps[K-1]`` holds step K's own feeds, ``shared`` those of every step.
    ``steps`` is empty when no data is given per step (the same feeds every step)."""

    __slots__ = ("shared", "steps")

    shared: list[Feed]
    steps: list[list[Feed]]

    def __init__(self, shared: list[Feed], steps: list[list[Feed]]) -> None:
        self.shared = shared
        self.steps = steps

    @property
    def count(self) -> int | None:
        """How many steps the data gives (None: any number, every step the same)."""
        return len(self.steps) or None

    def step(self, number: int) -> dict[str, np.ndarray]:
        """The feeds of step ``number`` (from 1) by input name."""
        own = self.steps[number - 1] if self.steps else []
        return {feed.name: feed.array for feed in [*self.shared, *own]}

    def listed(self) -> list[Feed]:
        """Every feed once: the shared ones, then each step's named ``stepK/NAME``."""
        return [*self.shared, *(Feed(step_key(number, feed.name), feed.array, feed.source)
                                for number, own in enumerate(self.steps, 1) for feed in own)]


def open_step_sources(
    npz_paths: Sequence[str], npy_files: Sequence[tuple[str, str]], element_limit: int,
    json_files: Sequence[str] = (), notes: list[str] | None = None,
) -> list[FeedSource]:
    """:func:`irgraph.tools.feeds.open_sources`, where an .npz path may also be a folder of one .npz per step
    (its inputs named ``stepK/NAME``, see the module docstring). Nothing is read yet."""
    folders = [path for path in npz_paths if os.path.isdir(path)]
    sources = feeds_lib.open_sources([path for path in npz_paths if path not in folders], npy_files,
                                     element_limit, json_files, notes)
    names = {source.name: source.path for source in sources}
    try:
        for folder in folders:
            for number, path in enumerate(_step_files(folder, notes), 1):
                archive = npz.open_npz(path, element_limit)
                if not len(archive):  # a step without data: load_step_feeds says which step is missing
                    archive.close()
                for name in archive:
                    key = step_key(number, name)
                    if key in names:
                        raise FeedError(f"input {key!r} is given twice ({names[key]} and {path})")
                    names[key] = path
                    sources.append(FeedSource(key, path, archive, member=name))
    except BaseException:
        feeds_lib.close_sources(sources)
        raise
    return sources


def _step_files(folder: str, notes: list[str] | None) -> list[str]:
    """The .npz files of a folder of steps, in the order of the number in their names."""
    numbered: dict[int, str] = {}
    ignored = []
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if not entry.lower().endswith(".npz") or not os.path.isfile(path):
            ignored.append(entry)
            continue
        digits = _NUMBER.findall(entry[:-4])
        if not digits:
            raise IrIOError(f"{printable(entry)!r} has no step number in its name (step1.npz, step2.npz, ...)",
                            Location(file=folder))
        number = int(digits[-1])
        if number in numbered:
            raise IrIOError(f"{printable(numbered[number])!r} and {printable(entry)!r} both hold step {number}",
                            Location(file=folder))
        numbered[number] = entry
    if not numbered:
        raise IrIOError("the folder of steps holds no .npz file (one per step: step1.npz, step2.npz, ...)",
                        Location(file=folder))
    if ignored and notes is not None:
        notes.append(f"{folder}: no input read from what is no .npz file: "
                     f"{', '.join(printable(name) for name in ignored[:5])}"
                     + (f", ... ({len(ignored)} in all)" if len(ignored) > 5 else ""))
    return [os.path.join(folder, numbered[number]) for number in sorted(numbered)]


def load_step_feeds(sources: Sequence[FeedSource], model: Model, shapes: Mapping[int, Shape], element_limit: int
                    ) -> StepFeeds:
    """Read the feeds of ``sources``: names ``stepK/NAME`` are step K's data for input NAME, others every step's.

    Raises FeedError when the steps are not 1..N, when a step leaves out an input another step gives, or when
    an input is given both for every step and per step.
    """
    inputs = model.input_index()
    shared: list[FeedSource] = []
    by_step: dict[int, list[FeedSource]] = {}
    for source in sources:
        found = _STEP_KEY.fullmatch(source.name)
        if found is None or source.name in inputs:  # an input may be named step1/x itself
            shared.append(source)
        else:
            name, digits = found.group(2), found.group(1).lstrip("0") or "0"
            if len(digits) > _MAX_STEP_DIGITS:  # int() refuses 4,300 digits and more, with a ValueError
                raise FeedError(f"the inputs give step {digits[:_MAX_STEP_DIGITS]}... ({len(digits)} digits); steps "
                                "are numbered from 1 without a gap (step1/NAME, step2/NAME, ...)")
            by_step.setdefault(int(digits), []).append(
                FeedSource(name, source.path, source.archive, source.data, source.member or source.name))
    if not by_step:
        return StepFeeds(feeds_lib.load_feeds(sources, model, shapes, element_limit), [])
    if len(by_step) > MAX_STEPS:
        raise FeedError(f"the inputs give {len(by_step)} steps, more than the {MAX_STEPS} a run may take")
    # The first gap is looked for among 1..len+1 only: a key such as step99999999999/x must not make a range of
    # that many numbers.
    missing = next(number for number in range(1, len(by_step) + 2) if number not in by_step)
    if 0 in by_step or missing <= max(by_step):
        raise FeedError(f"the inputs give steps {_numbers(sorted(by_step))}; steps are numbered from 1 without a gap "
                        f"(step1/NAME, step2/NAME, ...)" + (f": step {missing} is missing" if missing <= max(by_step)
                                                             else ""))

    def parameters(group: Sequence[FeedSource]) -> dict[int, str]:
        return {inputs[source.name].id: source.name for source in group if source.name in inputs}

    everywhere = parameters(shared)
    given = {number: parameters(by_step[number]) for number in sorted(by_step)}
    for number, own in given.items():
        both = sorted(set(own) & set(everywhere))
        if both:
            raise FeedError(f"input {everywhere[both[0]]!r} is given for every step and for step {number} "
                            f"({step_key(number, own[both[0]])}): give it one way")
        for other, theirs in given.items():
            left_out = sorted(set(theirs) - set(own))
            if left_out:
                raise FeedError(f"step {number} gives no data for input {theirs[left_out[0]]!r}, which step {other} "
                                "gives: every step needs the same inputs")
    loaded = feeds_lib.load_feeds(shared, model, shapes, element_limit)
    return StepFeeds(loaded, [feeds_lib.load_feeds(by_step[number], model, shapes, element_limit)
                              for number in sorted(by_step)])


def _numbers(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:8]))
    return shown + (f", ... ({len(numbers)} in all)" if len(numbers) > 8 else "")


def save_step_inputs(path: str, feeds: StepFeeds) -> None:
    """Write the feeds of every step as the run used them: an .npz keyed ``stepK/NAME`` for per-step data and
    ``NAME`` for data of every step, which ``--inputs`` reads back the same. Polygraphy's JSON holds independent
    runs, not the steps of one: refused."""
    if not feeds.steps:
        feeds_lib.save_inputs(path, feeds.shared)
        return
    if path.lower().endswith(".json"):
        raise FeedError(f"--save-inputs {path}: Polygraphy's JSON holds no per-step inputs; save them as .npz")
    npz.write_npz(path, {feed.name: npz.for_storage(feed.array) for feed in feeds.listed()})
