"""Mutation testing of irgraph's core modules with a small AST mutator (stdlib + pytest only).

Each mutant changes one thing in one module (a comparison, a boolean or arithmetic operator, a
constant, a ``not``, a condition, a return value, a ``raise`` or an ``except`` body, a call
statement) and runs the tests mapped to that module with ``-x``. A mutant the tests do not fail
on "survives": either a test is missing, or the mutant is equivalent (listed, with the reason, in
``tests/mutation/equivalent.txt`` and left out of the rate).

Mutants are written into temporary copies of ``src/`` (one per worker) put first on PYTHONPATH,
never into the worktree, so an interrupted run damages nothing. Not collected by pytest (the name
does not start with ``test_``); ``tests/mutation/test_mutator.py`` checks the tool itself.

    python tests/mutation/run.py                      # every core module, 2 workers
    python tests/mutation/run.py shapes interpreter   # some groups (or paths under src/)
    python tests/mutation/run.py --sample 40 --seed 1 # 40 random mutants per module
    python tests/mutation/run.py --list-equivalent    # the known-equivalent mutants
"""

from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENT_FILE = Path(__file__).with_name("equivalent.txt")

# group -> (globs of modules under ROOT, the tests that should catch a change in them). Every module
# under src/irgraph/ belongs to exactly one group (tests/mutation/test_mutator.py checks it), so a new
# module or package is measured from the day it lands. Each mutant runs its tests until the first
# failure and a survivor runs them all, so the lists hold the module's own tests, fastest first, and
# leave out the slow generated sweeps (fuzzing, hypothesis properties, real networks, 200,000-layer
# models). An op module with its own test file (tests/ops/CATEGORY/test_STEM.py) runs that file only
# (see tests_of): its kill rate then says what its own tests pin down.
OPS_DIR = ROOT / "src" / "irgraph" / "ops"
# ops/families/ holds the shared kernels; each is judged by the tests of the ops built on it.
FAMILY_TESTS: dict[str, tuple[str, ...]] = {
    "adaptive_pooling": ("tests/ops/pooling",),
    "batch_space": ("tests/ops/movement/test_batch_space.py",),
    "block_rearrange": ("tests/ops/movement/test_rearrange.py",),
    "color_convert": ("tests/ops/image/test_color_convert.py",),
    "convolution": ("tests/ops/convolution",),
    "elementwise": ("tests/ops/arithmetic", "tests/ops/comparison", "tests/ops/bitwise"),
    "embedding": ("tests/ops/sparse",),
    "fft": ("tests/ops/signals",),
    "pooling": ("tests/ops/pooling",),
    "recurrent": ("tests/ops/sequence",),
    "reduction": ("tests/ops/reduction",),
    "scatter": ("tests/ops/movement/test_scatter_elements_update.py", "tests/ops/movement/test_scatter_nd_update.py",
                "tests/ops/movement/test_scatter_update.py"),
    "spatial": ("tests/ops/pooling",),
}
# categories whose tests live with another category's
CATEGORY_TESTS: dict[str, tuple[str, ...]] = {"logical": ("tests/ops/comparison",)}
OPS_BASE_TESTS = ("tests/ops/test_op.py", "tests/ops/test_catalogue.py", "tests/ops/test_layout.py",
                  "tests/ops/test_tolerance.py", "tests/ops/test_unknown_values.py",
                  "tests/ops/test_shape_ops_from_ir.py", "tests/hostile/test_op_errors.py")


def _op_groups() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """ops/CATEGORY for each category package (its tests: tests/ops/CATEGORY), ops/families/STEM per kernel."""
    groups: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
        "ops": (("src/irgraph/ops/*.py",), OPS_BASE_TESTS),
    }
    for package in sorted(p for p in OPS_DIR.iterdir() if (p / "__init__.py").is_file()):
        if package.name == "families":
            for stem, tests in FAMILY_TESTS.items():
                groups[f"ops/families/{stem}"] = ((f"src/irgraph/ops/families/{stem}.py",), tests)
        else:
            tests = CATEGORY_TESTS.get(package.name, (f"tests/ops/{package.name}",))
            groups[f"ops/{package.name}"] = ((f"src/irgraph/ops/{package.name}/*.py",), tests)
    return groups


GROUPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "core": (("src/irgraph/core/*.py",),
             ("tests/core/test_shapes.py", "tests/io/test_integers.py", "tests/ops/test_op.py",
              "tests/hostile/test_graph_errors.py", "tests/hostile/test_op_errors.py")),
    "graph": (("src/irgraph/graph/*.py",),
              ("tests/graph/test_model.py", "tests/hostile/test_graph_errors.py",
               "tests/hostile/test_output_names.py")),
    **_op_groups(),
    "analysis": (("src/irgraph/analysis/*.py",),
                 ("tests/analysis/test_validation.py", "tests/ops/test_shape_propagation.py",
                  "tests/runtime/test_state.py", "tests/hostile/test_graph_errors.py")),
    "control_flow": (("src/irgraph/control_flow/*.py",),
                     ("tests/control_flow/test_runners.py", "tests/control_flow/test_validation.py",
                      "tests/hostile/test_bodies.py", "tests/hostile/test_body_types.py",
                      "tests/oracle/test_control_flow_vs_openvino.py")),
    "runtime": (("src/irgraph/runtime/*.py",),
                ("tests/runtime/test_interpreter.py", "tests/runtime/test_interpreter_reuse.py",
                 "tests/runtime/test_state.py", "tests/runtime/test_marking.py", "tests/runtime/test_in_place.py",
                 "tests/runtime/test_threads.py", "tests/runtime/test_decompression.py",
                 "tests/test_seed_examples.py", "tests/hostile/test_run_inputs.py", "tests/hostile/test_outputs.py",
                 "tests/runtime/test_state_openvino.py")),
    "io": (("src/irgraph/io/*.py",),
           ("tests/io/test_weights.py", "tests/hostile/test_weights.py", "tests/hostile/test_weights_truncated.py",
            "tests/io/test_atomic.py", "tests/hostile/test_special_files.py")),
    "io/xml": (("src/irgraph/io/xml/*.py",),
               ("tests/io/test_xml_reader.py", "tests/io/test_xml_writer.py", "tests/io/test_write_freshness.py",
                "tests/io/test_fast_reader.py", "tests/io/test_file_validation.py", "tests/io/test_sub_graphs.py",
                "tests/hostile/test_malformed.py", "tests/hostile/test_xml_attacks.py",
                "tests/hostile/test_duplicate_elements.py", "tests/io/test_roundtrip_ov.py")),
    "io/onnx": (("src/irgraph/io/onnx/**/*.py",),
                ("tests/io/test_onnx_import.py", "tests/io/test_onnx_import_rules.py", "tests/io/test_onnx_export.py",
                 "tests/io/test_onnx_export_rules.py", "tests/io/test_onnx_import_control.py",
                 "tests/io/test_onnx_export_sub_graphs.py", "tests/io/test_onnx_export_recurrent.py",
                 "tests/hostile/test_onnx_files.py", "tests/hostile/test_onnx_named_errors.py")),
    "io/data": (("src/irgraph/io/data/*.py",),
                ("tests/hostile/test_polygraphy_json.py", "tests/hostile/test_input_archives.py",
                 "tests/hostile/test_reference_files.py", "tests/cli/test_ir_run_data_files.py")),
    "tools": (("src/irgraph/tools/*.py",),
              ("tests/tools/test_feeds_compare.py", "tests/tools/test_diff.py", "tests/tools/test_extract.py",
               "tests/tools/test_layerwise.py", "tests/tools/test_progress.py")),
    "cli": (("src/irgraph/cli/*.py",),
            ("tests/cli/test_common.py", "tests/cli/test_ir_info.py", "tests/cli/test_ir_validate.py",
             "tests/cli/test_ir_run.py", "tests/cli/test_ir_run_steps.py", "tests/cli/test_ir_convert.py",
             "tests/cli/test_terminal_safety.py")),
}
SKIPPED_MODULES = ("__init__.py",)  # package imports only

# A hypothesis profile for mutants: no example database (a failure found for one mutant must not
# be replayed against the next) and derandomized, so a rerun gives the same result.
PLUGIN = '''
import hypothesis
hypothesis.settings.register_profile("mutation", database=None, derandomize=True)
hypothesis.settings.load_profile("mutation")
'''

# Records which lines of one module each test runs (sys.settrace, only in that module's frames), so
# a mutant runs only the tests that reach it. Lines run outside any test (at import) map to "".
COVERAGE_PLUGIN = '''
import json, os, sys, threading
import pytest

TARGET = os.environ["MUTATION_TARGET"]
lines = {}
current = [""]


def _local(frame, event, arg):
    if event == "line":
        lines.setdefault(current[0], set()).add(frame.f_lineno)
    return _local


def _global(frame, event, arg):
    if frame.f_code.co_filename == TARGET:
        lines.setdefault(current[0], set()).add(frame.f_lineno)
        return _local
    return None


sys.settrace(_global)
threading.settrace(_global)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    current[0] = item.nodeid
    yield
    current[0] = ""


def pytest_sessionfinish(session, exitstatus):
    sys.settrace(None)
    with open(os.environ["MUTATION_COVERAGE"], "w") as out:
        json.dump({test: sorted(found) for test, found in lines.items()}, out)
'''


# ------------------------------------------------------------------------------------ mutants
@dataclasses.dataclass(frozen=True)
class Mutant:
    """One change to one module: where it is, what it does, and its stable id."""

    path: str  # relative to the source root's parent (src/irgraph/core/shapes.py)
    index: int  # position among the module's mutation sites (the order of the AST walk)
    line: int
    end_line: int
    scope: str  # Dim.floordiv, <module>
    before: str
    after: str
    occurrence: int = 1

    @property
    def key(self) -> str:
        """Stable across edits elsewhere in the file: the path, scope and change, not the line."""
        suffix = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return f"{self.path}::{self.scope}: {self.before} -> {self.after}{suffix}"


@dataclasses.dataclass
class Site:
    """A mutation site found by the walk: replace ``node`` (``parent.field[index]``) by ``new``."""

    node: ast.AST
    parent: ast.AST
    field: str
    slot: int | None
    new: ast.AST
    scope: str
    shown: tuple[ast.AST, ast.AST] | None = None  # what to print instead of node -> new

    def apply(self) -> None:
        if self.slot is None:
            setattr(self.parent, self.field, self.new)
        else:
            getattr(self.parent, self.field)[self.slot] = self.new


COMPARE_SWAPS: dict[type, tuple[type, ...]] = {
    ast.Lt: (ast.LtE, ast.GtE), ast.LtE: (ast.Lt, ast.Gt), ast.Gt: (ast.GtE, ast.LtE), ast.GtE: (ast.Gt, ast.Lt),
    ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,),
}
BINOP_SWAPS: dict[type, type] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
    ast.LShift: ast.RShift, ast.RShift: ast.LShift,
}


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _skipped_statement(node: ast.AST) -> bool:
    """Statements never mutated: docstrings, imports, ``__all__``, ``if TYPE_CHECKING:``."""
    if _is_docstring(node) or isinstance(node, ast.Import | ast.ImportFrom | ast.Global | ast.Nonlocal):
        return True
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
        return True
    return isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _string_operand(node: ast.BinOp) -> bool:
    return any(isinstance(side, ast.JoinedStr) or (isinstance(side, ast.Constant) and isinstance(side.value, str))
               for side in (node.left, node.right))


def _sites_of(node: ast.AST, parent: ast.AST, field: str, slot: int | None, scope: str) -> Iterator[Site]:
    def site(new: ast.AST, shown: tuple[ast.AST, ast.AST] | None = None) -> Site:
        return Site(node, parent, field, slot, new, scope, shown)

    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            for swap in COMPARE_SWAPS.get(type(op), ()):
                new = copy.copy(node)
                new.ops = [*node.ops[:i], swap(), *node.ops[i + 1 :]]
                yield site(new)
    elif isinstance(node, ast.BoolOp):
        yield site(ast.BoolOp(op=ast.Or() if isinstance(node.op, ast.And) else ast.And(), values=node.values))
    elif isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAPS and not _string_operand(node):
        yield site(ast.BinOp(left=node.left, op=BINOP_SWAPS[type(node.op)](), right=node.right))
    elif isinstance(node, ast.AugAssign) and type(node.op) in BINOP_SWAPS:
        yield site(ast.AugAssign(target=node.target, op=BINOP_SWAPS[type(node.op)](), value=node.value))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        yield site(node.operand)
    elif isinstance(node, ast.Constant) and type(node.value) in (int, bool):
        value = node.value
        new_value = (not value) if isinstance(value, bool) else (1 - value if value in (0, 1) else value + 1)
        new = ast.Constant(new_value)
        shown = None
        if isinstance(parent, ast.expr):  # show 0 -> 1 with its context: Dim.static(0) -> Dim.static(1)
            changed = copy.copy(parent)
            container = getattr(parent, field)
            setattr(changed, field, new if slot is None else [*container[:slot], new, *container[slot + 1 :]])
            shown = (parent, changed)
        yield site(new, shown)
    elif isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert) and not (
        isinstance(node.test, ast.Compare) and len(node.test.ops) == 1  # the comparison swaps negate it
    ):
        negated = copy.copy(node)
        negated.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        shown = (node.test, negated.test) if not isinstance(node, ast.IfExp) else None
        yield site(negated, shown)
    elif isinstance(node, ast.Return) and node.value is not None and not (
        isinstance(node.value, ast.Constant) and node.value.value is None
    ):
        yield site(ast.Return(value=ast.Constant(None)))
    elif isinstance(node, ast.Raise):
        yield site(ast.Pass())
    elif isinstance(node, ast.ExceptHandler) and not (len(node.body) == 1 and isinstance(node.body[0], ast.Pass)):
        handler = copy.copy(node)
        handler.body = [ast.Pass()]
        yield site(handler)
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        yield site(ast.Pass())
    elif isinstance(node, ast.Break):
        yield site(ast.Continue())
    elif isinstance(node, ast.Continue):
        yield site(ast.Break())


def _walk(node: ast.AST, scope: str) -> Iterator[Site]:
    for field, value in ast.iter_fields(node):
        if field in ("annotation", "returns", "type_comment", "decorator_list"):
            continue
        children = value if isinstance(value, list) else [value]
        for slot, child in enumerate(children):
            if not isinstance(child, ast.AST) or _skipped_statement(child):
                continue
            inner = scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = child.name if scope == "<module>" else f"{scope}.{child.name}"
            yield from _sites_of(child, node, field, slot if isinstance(value, list) else None, inner)
            yield from _walk(child, inner)


def _sites(tree: ast.Module) -> list[Site]:
    return list(_walk(tree, "<module>"))


def _one_line(node: ast.AST) -> str:
    text = " ".join(line.strip() for line in ast.unparse(node).splitlines())
    return text if len(text) <= 100 else text[:97] + "..."


def mutants_of(path: Path, shown_path: str) -> list[Mutant]:
    """Every mutant of the module at ``path``, in walk order."""
    source = path.read_text(encoding="utf-8")
    found: list[Mutant] = []
    seen: dict[tuple[str, str, str], int] = {}
    for index, site in enumerate(_sites(ast.parse(source))):
        before, after = site.shown or (site.node, site.new)
        text = (site.scope, _one_line(before), _one_line(after))
        seen[text] = seen.get(text, 0) + 1
        line = getattr(site.node, "lineno", 0)
        end_line = getattr(site.node, "end_lineno", None) or line
        found.append(Mutant(shown_path, index, line, end_line, *text, occurrence=seen[text]))
    return found


def mutated_source(path: Path, index: int) -> str:
    """The module's source with mutation site ``index`` applied (comments are not kept)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    _sites(tree)[index].apply()
    return ast.unparse(ast.fix_missing_locations(tree))


# ------------------------------------------------------------------------------------ running
@dataclasses.dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed, survived, timeout
    seconds: float
    note: str = ""


class Workspace:
    """A temporary copy of a source tree, the pytest plugins beside it, and a pytest server; one per worker.

    The server (``run.py --serve``) imports NumPy, lxml, hypothesis and pytest once and forks a child
    per run, which puts this copy first on ``sys.path`` and calls ``pytest.main``: a run does not
    pay for starting Python and importing them again. irgraph itself is imported in each child.
    """

    def __init__(self, src: Path, base: Path, name: str) -> None:
        self.src = base / name / "src"
        shutil.copytree(src, self.src, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        (base / name / "_mutation_profile.py").write_text(PLUGIN, encoding="utf-8")
        (base / name / "_mutation_coverage.py").write_text(COVERAGE_PLUGIN, encoding="utf-8")
        self.plugin_dir = base / name
        self.basetemp = base / name / "pytest"
        self.server = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def close(self) -> None:
        self.server.stdin.close()  # type: ignore[union-attr]
        self.server.wait()

    def run(self, tests: Sequence[str], cwd: Path, timeout: float, *, options: Sequence[str] = ("-x",),
            env: dict[str, str] | None = None) -> tuple[str, float]:
        """Run pytest on ``tests``: survived (they pass), killed (they fail), timeout or error (pytest could not
        run them: a usage error or no tests collected)."""
        paths = [str(self.src), str(self.plugin_dir)]
        env = dict(env or {}, PYTHONPATH=os.pathsep.join(paths), PYTHONDONTWRITEBYTECODE="1")
        args = [*options, "-q", "-p", "no:cacheprovider", "-p", "_mutation_profile", f"--basetemp={self.basetemp}",
                *tests]
        request = {"args": args, "cwd": str(cwd), "paths": paths, "env": env, "timeout": max(1, round(timeout))}
        start = time.perf_counter()
        self.server.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
        self.server.stdin.flush()  # type: ignore[union-attr]
        code = json.loads(self.server.stdout.readline())  # type: ignore[union-attr]
        # 1: a test failed; 2 or 3: the mutant broke collection or pytest itself; 4 or 5: a selection pytest
        # could not find (usage error, no tests collected); SIGALRM: the time ran out
        status = {0: "survived", 1: "killed", 2: "killed", 3: "killed", -signal.SIGALRM: "timeout"}.get(code, "error")
        return status, time.perf_counter() - start

    def coverage(self, module: Path, tests: Sequence[str], cwd: Path) -> dict[str, list[int]]:
        """Which lines of ``module`` (its copy here) each test runs; "" holds the lines run at import."""
        target = self.src / module
        report = self.plugin_dir / "coverage.json"
        status, _ = self.run(tests, cwd, timeout=1800, options=("-p", "_mutation_coverage"),
                             env={"MUTATION_TARGET": str(target), "MUTATION_COVERAGE": str(report)})
        if status != "survived":
            raise SystemExit(f"the tests fail on the unmutated code: {' '.join(tests)}")
        return json.loads(report.read_text(encoding="utf-8"))


def tests_reaching(mutant: Mutant, coverage: dict[str, list[int]], tests: Sequence[str]) -> list[str] | None:
    """The tests that run the mutated lines (all of ``tests`` for import-time lines); None when no test does."""
    lines = set(range(mutant.line, mutant.end_line + 1))
    if lines & set(coverage.get("", ())):
        return list(tests)
    reaching = [test for test, covered in coverage.items() if test and lines & set(covered)]
    return reaching or None


def run_module(src: Path, module: Path, mutants: Sequence[Mutant], tests: Sequence[str], cwd: Path,
               workers: int = 2, progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Run the tests of ``tests`` that reach each mutant of ``module`` (a file under ``src``), ``workers`` at a time.

    A mutant no test reaches survives without a run; when pytest cannot run a selection (an odd test
    id), the mutant runs against all of ``tests``.
    """
    relative = module.relative_to(src)
    with tempfile.TemporaryDirectory(prefix="irgraph-mutation-") as base:
        spaces = [Workspace(src, Path(base), f"w{i}") for i in range(workers)]
        started = time.perf_counter()
        coverage = spaces[0].coverage(relative, tests, cwd)
        timeout = 3 * (time.perf_counter() - started) + 10
        free = list(spaces)
        lock = threading.Lock()

        def one(mutant: Mutant) -> Outcome:
            selection = tests_reaching(mutant, coverage, tests)
            if selection is None:
                outcome = Outcome(mutant, "survived", 0.0, "no test reaches it")
            else:
                with lock:
                    space = free.pop()
                try:
                    target = space.src / relative
                    original = target.read_text(encoding="utf-8")
                    target.write_text(mutated_source(module, mutant.index), encoding="utf-8")
                    try:
                        status, seconds = space.run(selection, cwd, timeout)
                        if status == "error" and selection != list(tests):
                            status, more = space.run(tests, cwd, timeout)
                            seconds += more
                    finally:
                        target.write_text(original, encoding="utf-8")
                finally:
                    with lock:
                        free.append(space)
                outcome = Outcome(mutant, "killed" if status == "error" else status, seconds)
            if progress:
                progress(outcome)
            return outcome

        try:
            with ThreadPoolExecutor(workers) as pool:
                return list(pool.map(one, mutants))
        finally:
            for space in spaces:
                space.close()


def read_equivalent(path: Path = EQUIVALENT_FILE) -> dict[str, str]:
    """Known-equivalent mutants: ``key || reason`` per line; ``#`` starts a comment line."""
    found: dict[str, str] = {}
    if not path.exists():
        return found
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, reason = line.partition(" || ")
            found[key.strip()] = reason.strip()
    return found


def tests_of(module: Path, group_tests: tuple[str, ...]) -> tuple[str, ...]:
    """The tests of one module: an op's own test file (tests/ops/CATEGORY/test_STEM.py) when it has one, else
    its group's."""
    relative = module.relative_to(ROOT / "src" / "irgraph")
    if relative.parts[0] == "ops" and len(relative.parts) == 3 and relative.parts[1] != "families":
        own = Path("tests", *relative.parts[:2], f"test_{module.stem}.py")
        if (ROOT / own).is_file():
            return (own.as_posix(),)
    return group_tests


def modules_of(names: Sequence[str]) -> list[tuple[str, Path, tuple[str, ...]]]:
    """(group, module, tests) for group names or paths; every group when ``names`` is empty."""
    chosen: list[tuple[str, Path, tuple[str, ...]]] = []
    for group, (globs, tests) in GROUPS.items():
        for pattern in globs:
            for module in sorted(ROOT.glob(pattern)):
                relative = module.relative_to(ROOT).as_posix()
                if module.name in SKIPPED_MODULES:
                    continue
                if not names or group in names or relative in names or module.stem in names:
                    chosen.append((group, module, tests_of(module, tests)))
    return chosen


def serve() -> None:
    """The pytest server of a Workspace: one JSON request per stdin line, the exit code of a forked run back."""
    import hypothesis  # noqa: F401 - imported once here, inherited by every child
    import lxml.etree  # noqa: F401
    import ml_dtypes  # noqa: F401
    import networkx  # noqa: F401
    import numpy  # noqa: F401
    import pytest

    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.chdir(request["cwd"])
            os.environ.update(request["env"])
            sys.path[:0] = request["paths"]
            sys.dont_write_bytecode = True
            signal.alarm(request["timeout"])
            os._exit(int(pytest.main(request["args"])))
        _, status = os.waitpid(pid, 0)
        print(json.dumps(os.waitstatus_to_exitcode(status)), flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help=f"groups ({', '.join(GROUPS)}), module stems or paths")
    parser.add_argument("--sample", type=int, help="run this many random mutants per module")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    parser.add_argument("--match", action="append", help="run only the mutants whose key contains this text "
                        "(repeatable; to recheck survivors)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="list the mutants without running them")
    parser.add_argument("--list-equivalent", action="store_true", help="list the known-equivalent mutants")
    parser.add_argument("--verbose", action="store_true", help="print every mutant as it finishes")
    args = parser.parse_args(argv)
    equivalent = read_equivalent()
    if args.list_equivalent:
        for key, reason in equivalent.items():
            print(f"{key}\n    {reason}")
        return 0
    chosen = modules_of(args.modules)
    if not chosen:
        parser.error(f"no module matches {args.modules}")
    totals: dict[str, list[int]] = {}
    survivors: list[Outcome] = []
    stale = set(equivalent)
    started = time.perf_counter()
    for group, module, tests in chosen:
        relative = module.relative_to(ROOT).as_posix()
        every = mutants_of(module, relative)
        stale -= {m.key for m in every}
        mutants = [m for m in every if m.key not in equivalent]
        excluded = len(every) - len(mutants)
        if args.match:
            mutants = [m for m in mutants if any(text in m.key for text in args.match)]
            if not mutants:
                continue
        if args.sample is not None and args.sample < len(mutants):
            chosen_mutants = random.Random(f"{args.seed}:{relative}").sample(mutants, args.sample)
            mutants = sorted(chosen_mutants, key=lambda m: m.index)
        if args.list:
            for m in mutants:
                print(f"{relative}:{m.line}: {m.before} -> {m.after}   [{m.key}]")
            continue

        def show(outcome: Outcome, relative: str = relative) -> None:
            if args.verbose:
                m = outcome.mutant
                print(f"  {outcome.status:8} {outcome.seconds:5.1f}s {relative}:{m.line}: {m.before} -> {m.after}"
                      f"{'   (' + outcome.note + ')' if outcome.note else ''}", flush=True)

        module_start = time.perf_counter()
        outcomes = run_module(ROOT / "src", module, mutants, tests, ROOT, args.workers, show)
        killed = sum(o.status != "survived" for o in outcomes)
        total = totals.setdefault(group, [0, 0, 0])
        total[0] += killed
        total[1] += len(outcomes)
        total[2] += excluded
        survivors += [o for o in outcomes if o.status == "survived"]
        rate = 100 * killed / len(outcomes) if outcomes else 100.0
        print(f"{relative}: {killed}/{len(outcomes)} killed ({rate:.1f} %), {excluded} equivalent excluded, "
              f"{time.perf_counter() - module_start:.0f} s", flush=True)
    if args.list:
        return 0
    print("\nsurviving mutants:")
    for o in sorted(survivors, key=lambda o: (o.mutant.path, o.mutant.line)):
        note = f" ({o.note})" if o.note else ""
        print(f"  {o.mutant.path}:{o.mutant.line}: {o.mutant.before} -> {o.mutant.after}{note}   [{o.mutant.key}]")
    print("\nkill rate per group (equivalent mutants excluded):")
    for group, (killed, count, excluded) in totals.items():
        print(f"  {group:12} {killed}/{count} = {100 * killed / max(count, 1):.1f} %   ({excluded} equivalent)")
    if stale and not args.modules and args.sample is None:
        print("\nequivalent.txt lists mutants that no longer exist (remove them):")
        for key in sorted(stale):
            print(f"  {key}")
    print(f"\n{time.perf_counter() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        sys.exit(main())
