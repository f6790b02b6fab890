"""Mutation testing of irgraph's core modules with a small AST mutator (stdlib + pytest only).

Each mutant changes one thing in one module (a comparison, a boolean or arithmetic operator, a
constant, a ``not``, a condition, a return value, a ``raise`` or an ``except`` body, a call
statement) and runs the tests mapped to that module with ``-x``. A mutant the tests do not fail
on "survives": either a test is missing, or the mutant is equivalent (listed, with the reason, in
``tests/mutation/equivalent.txt`` and left out of the rate).

Mutants are written into temporary copies of ``src/`` (one per worker) put first on PYTHONPATH,
never into the worktree, so an interrupted run damages nothing. Not collected by pytest (the name
does not start with ``test_``); ``tests/mutation/test_mutator.py`` checks the tool itself.

    python tests/mutation/run.py                      # every module of every group, 2 workers
    python tests/mutation/run.py core runtime         # some groups (or paths under src/)
    python tests/mutation/run.py --sample 40 --seed 1 # 40 random mutants per module
    python tests/mutation/run.py core --group-sample 30 --seed 1 --record  # 30 per group, kept
    python tests/mutation/run.py --render             # docs/mutation.md from the results
    python tests/mutation/run.py --list-equivalent    # the known-equivalent mutants

``--record`` keeps each group's counts in ``tests/mutation/results.json`` (a run replaces the
entries of the groups it ran) and regenerates ``docs/mutation.md`` from it;
tests/mutation/test_mutator.py fails when they disagree, so the figures are never typed by hand.
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
RESULTS_FILE = Path(__file__).with_name("results.json")
DOC_FILE = ROOT / "docs" / "mutation.md"

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
    "array_broadcast": ("tests/ops/arithmetic", "tests/ops/comparison", "tests/ops/condition"),  # binary ops, Select
    "batch_space": ("tests/ops/movement/test_batch_space.py",),
    "block_rearrange": ("tests/ops/movement/test_rearrange.py",),
    "color_convert": ("tests/ops/image/test_color_convert.py",),
    "convolution": ("tests/ops/convolution", "tests/runtime/test_bound_kernels.py"),  # plan-time bound kernels
    "convolution_kernels": ("tests/ops/convolution", "tests/runtime/test_bound_kernels.py"),
    "depthwise_kernels": ("tests/ops/convolution/test_depthwise_kernels.py",),  # and its differential test
    "elementwise": ("tests/ops/arithmetic", "tests/ops/comparison", "tests/ops/bitwise",
                    "tests/runtime/test_ufunc_steps.py",  # the plan-time ufunc steps (ufunc_call, in_place_ufunc)
                    "tests/runtime/test_in_place.py",  # writes_in_place: the steps that write over their input
                    # BinaryArithmetic.bounds: the dims shape arithmetic computes, against OpenVINO's
                    "tests/ops/test_shape_propagation.py::test_bounds_do_not_pass_non_monotonic_arithmetic",
                    "tests/ops/test_shape_propagation.py::test_quotients_and_remainders_by_a_positive_constant",
                    "tests/ops/test_shape_propagation.py::test_a_remainder_across_a_period_of_the_divisor_spans_it"),
    "embedding": ("tests/ops/sparse",),
    "eps_mode": ("tests/ops/normalization/test_mvn.py", "tests/ops/normalization/test_normalize_l2.py"),
    "fft": ("tests/ops/signals",),
    "pooling": ("tests/ops/pooling",),
    "recurrent": ("tests/ops/sequence",),
    "reduction": ("tests/ops/reduction", "tests/ops/test_remembered_plans.py"),
    "resampling": ("tests/ops/image/test_interpolate.py",),
    "scatter": ("tests/ops/movement/test_scatter_elements_update.py", "tests/ops/movement/test_scatter_nd_update.py",
                "tests/ops/movement/test_scatter_update.py"),
    "softmax": ("tests/ops/activation/test_activations.py",),
    "spatial": ("tests/ops/pooling",),
}
# categories whose tests live with another category's
CATEGORY_TESTS: dict[str, tuple[str, ...]] = {
    "logical": ("tests/ops/comparison",),
    # Select's tests live with the comparison ops' (one file judges Select, Equal, LogicalAnd, BitwiseAnd ...)
    "condition": ("tests/ops/condition", "tests/ops/comparison/test_comparison_logical_bitwise_select.py"),
    # a remainder's bounds (Mod.remainder) are tested with the shape arithmetic that computes dims
    "arithmetic": ("tests/ops/arithmetic",
                   "tests/ops/test_shape_propagation.py::test_a_remainder_across_a_period_of_the_divisor_spans_it"),
}
FEEDS_TRACED = "tests/tools/test_feeds_ranges.py::test_gather_indices_are_traced_back_through"
# op modules whose own tests span more than test_STEM.py (the module holds several versions of the op)
REMEMBERED = "tests/ops/test_remembered_plans.py"
BOUND_KERNELS = "tests/runtime/test_bound_kernels.py"
MORE_OWN_TESTS: dict[str, tuple[str, ...]] = {
    "sort/non_max_suppression.py": ("tests/ops/sort/test_non_max_suppression_legacy.py",),  # NMS-1, -3, -4
    # the two paths to the maxima (fmax per tap, the reference's scan), and the indices nothing reads
    "pooling/max_pool.py": ("tests/ops/pooling/test_max_pool_paths.py",
                            "tests/ops/pooling/test_max_pool_unread_indices.py",
                            "tests/ops/pooling/test_pool_unpadded_rows.py"),
    # reads_values = False: what it changes (folding ShapeOf of a static input) is tested with the folding
    "shape/shape_of.py": ("tests/tools/test_surgery.py::test_fold_reads_static_shapes_only",),
    # forwards_values: what it changes (the range of random ids that reach a Gather through it) is tested with the feeds
    "type/convert.py": (f"{FEEDS_TRACED}_a_convert",),
    "shape/reshape.py": (f"{FEEDS_TRACED}_a_reshape", REMEMBERED),
    "shape/unsqueeze.py": (f"{FEEDS_TRACED}_an_unsqueeze", REMEMBERED),
    # what an op works out per input shapes, remembered (ops/memo.py): the memo's own tests
    "movement/broadcast.py": (REMEMBERED,),
    "matrix/mat_mul.py": (REMEMBERED,),
    "movement/gather.py": (REMEMBERED, BOUND_KERNELS),
    # plan-time bound evaluates: run by the interpreter, not by evaluate, and judged against it
    "activation/gelu.py": (BOUND_KERNELS,),
    "normalization/mvn.py": (BOUND_KERNELS,),
}
TOLERANCE_TEST = "tests/ops/test_tolerances.py"
OPS_BASE_TESTS = ("tests/ops/test_numeric.py", "tests/ops/test_op.py", "tests/ops/test_catalogue.py",
                  "tests/ops/test_layout.py", "tests/ops/test_tolerance.py", "tests/ops/test_unknown_values.py",
                  "tests/ops/test_shape_ops_from_ir.py", "tests/hostile/test_op_errors.py",
                  "tests/ops/test_remembered_plans.py")  # ops/memo.py


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
             ("tests/core", "tests/io/test_integers.py", "tests/analysis/test_validation.py",
              "tests/ops/test_op.py", "tests/hostile/test_graph_errors.py", "tests/hostile/test_op_errors.py",
              "tests/hostile/test_weights_truncated.py")),  # core/mappings.py maps the weights
    "graph": (("src/irgraph/graph/*.py",),
              ("tests/graph", "tests/hostile/test_graph_errors.py",
               "tests/hostile/test_output_names.py", "tests/runtime/test_marking.py",
               "tests/tools/test_extract.py",  # graph/names.py resolves the names marking and extraction take
               "tests/control_flow/test_validation.py")),  # port maps (graph/subgraph.py) as bodies are checked
    **_op_groups(),
    "builders": (("src/irgraph/builders/**/*.py",),
                 ("tests/builders/test_builders.py", "tests/builders/test_stubs.py")),
    "analysis": (("src/irgraph/analysis/*.py",),
                 ("tests/analysis", "tests/ops/test_shape_propagation.py", "tests/cli/test_ir_validate.py",
                  "tests/runtime/test_state.py", "tests/hostile/test_graph_errors.py",
                  "tests/runtime/test_decompression.py", "tests/tools/test_surgery.py",
                  # v10_name_collisions against the cases whose verdicts OpenVINO gives (their oracle test)
                  "tests/io/test_openvino_reads.py::"
                  "test_v10_operation_and_tensor_name_collisions_are_refused_as_openvino_refuses_them")),
    "control_flow": (("src/irgraph/control_flow/*.py",),
                     ("tests/control_flow/test_runners.py", "tests/control_flow/test_validation.py",
                      "tests/hostile/test_bodies.py", "tests/hostile/test_body_types.py",
                      "tests/oracle/test_control_flow_vs_openvino.py",
                      "tests/oracle/test_sub_graph_shapes_vs_openvino.py")),  # inference.py against OpenVINO's
    "runtime": (("src/irgraph/runtime/**/*.py",),
                ("tests/runtime/test_interpreter.py", "tests/runtime/test_interpreter_reuse.py",
                 "tests/runtime/test_state.py", "tests/runtime/test_marking.py", "tests/runtime/test_in_place.py",
                 "tests/runtime/test_threads.py", "tests/runtime/test_decompression.py",
                 "tests/test_seed_examples.py", "tests/hostile/test_run_inputs.py", "tests/hostile/test_outputs.py",
                 "tests/runtime/test_state_openvino.py", "tests/runtime/test_fast_paths.py",
                 "tests/runtime/test_plan.py", "tests/runtime/test_step_shapes.py",
                 "tests/runtime/test_step_time_hook.py",
                 "tests/runtime/test_ufunc_steps.py",  # runtime/_fast: the ufunc steps and the plans per shape
                 "tests/runtime/test_marking_bodies.py", "tests/runtime/test_plan_folding_memory.py",
                 "tests/runtime/test_keep_weights_compressed.py", "tests/runtime/test_kv_cache.py",
                 "tests/runtime/test_bound_kernels.py", "tests/runtime/test_heap.py")),
    "io": (("src/irgraph/io/*.py",),
           ("tests/io/test_weights.py", "tests/hostile/test_weights.py", "tests/hostile/test_weights_truncated.py",
            "tests/io/test_atomic.py", "tests/hostile/test_special_files.py", "tests/io/test_atomic_edges.py",
            "tests/io/test_sized_reader.py", "tests/io/test_weights_read_errors.py")),
    "io/xml": (("src/irgraph/io/xml/**/*.py",),
               ("tests/io/test_xml_reader.py", "tests/io/test_xml_writer.py", "tests/io/test_write_freshness.py",
                "tests/io/test_fast_reader.py", "tests/io/test_file_validation.py", "tests/io/test_sub_graphs.py",
                "tests/hostile/test_malformed.py", "tests/hostile/test_xml_attacks.py",
                "tests/hostile/test_duplicate_elements.py", "tests/io/test_roundtrip_ov.py",
                "tests/io/test_documented_limits.py", "tests/io/test_v10_losses.py", "tests/io/test_fast_paths.py",
                "tests/io/test_fast_bodies.py",
                "tests/io/test_openvino_reads.py",  # rt_info.openvino_rt_info and legacy sections, OpenVINO's verdicts
                "tests/hostile/test_rt_info_bounds.py::test_the_writer_refuses_rt_info_its_reader_would_refuse",
                # the fast reader's shared rt_info blocks, each use charged to the file's total
                "tests/hostile/test_rt_info_bounds.py::"
                "test_the_files_rt_info_total_is_bounded_counting_every_shared_block",
                "tests/hostile/test_rt_info_bounds.py::"
                "test_equal_rt_info_in_layers_of_different_types_counts_once_per_layer")),
    "io/onnx": (("src/irgraph/io/onnx/**/*.py",),
                ("tests/io/test_onnx_import.py", "tests/io/test_onnx_import_rules.py", "tests/io/test_onnx_export.py",
                 "tests/io/test_onnx_export_rules.py", "tests/io/test_onnx_import_control.py",
                 "tests/io/test_onnx_export_sub_graphs.py", "tests/io/test_onnx_export_recurrent.py",
                 "tests/hostile/test_onnx_files.py", "tests/hostile/test_onnx_named_errors.py",
                 "tests/io/test_onnx_import_rules_more.py", "tests/io/test_onnx_import_image.py",
                 "tests/io/test_onnx_import_signals.py", "tests/io/test_onnx_export_nms.py",
                 "tests/io/test_onnx_export_roi.py", "tests/io/test_onnx_export_models.py",
                 "tests/io/test_rewrite_exports.py", "tests/io/test_onnx_export_sweeps.py",
                 "tests/io/test_onnx_export_reshape.py", "tests/io/test_onnx_export_signals.py",
                 "tests/io/test_onnx_import_edges.py")),
    "io/data": (("src/irgraph/io/data/*.py",),
                ("tests/hostile/test_polygraphy_json.py", "tests/hostile/test_input_archives.py",
                 "tests/hostile/test_reference_files.py", "tests/cli/test_ir_run_data_files.py",
                 "tests/io/test_npy_headers.py", "tests/io/test_npz_files.py", "tests/cli/test_common.py",
                 "tests/hostile/test_run_inputs.py", "tests/io/test_zip_directory.py")),
    "tools": (("src/irgraph/tools/**/*.py",),
              ("tests/tools/test_feeds_compare.py", "tests/tools/test_diff.py", "tests/tools/test_extract.py",
               "tests/tools/test_layerwise.py", "tests/tools/test_local_error.py", "tests/tools/test_progress.py",
               "tests/tools/test_dot.py", "tests/tools/test_report.py", "tests/tools/test_report_page.py",
               "tests/tools/test_surgery.py", "tests/cli/test_ir_diff_compression.py", "tests/cli/test_ir_diff.py",
               "tests/cli/test_ir_extract.py", "tests/cli/test_ir_run_profile.py",
               "tests/tools/test_extract_names.py", "tests/tools/test_diff_matching.py",
               "tests/tools/test_feeds_ranges.py", "tests/tools/test_tolerances.py", "tests/hostile/test_step_feeds.py",
               "tests/cli/test_ir_convert_surgery.py")),
    "cli": (("src/irgraph/cli/*.py",),
            ("tests/cli/test_common.py", "tests/cli/test_ir_info.py", "tests/cli/test_ir_validate.py",
             "tests/cli/test_ir_run.py", "tests/cli/test_ir_run_steps.py", "tests/cli/test_ir_convert.py",
             "tests/cli/test_terminal_safety.py", "tests/cli/test_ir_diff.py", "tests/cli/test_ir_extract.py",
             "tests/cli/test_ir_run_conventions.py", "tests/cli/test_ir_run_profile.py",
             "tests/cli/test_ir_run_data_files.py", "tests/cli/test_onnx_sniffing.py",
             "tests/cli/test_cli_entry_points.py", "tests/cli/test_ir_validate_grouping.py",
             "tests/cli/test_ir_info_unknown.py", "tests/cli/test_ir_run_plain_line.py", "tests/cli/test_parsing.py",
             "tests/cli/test_ir_convert_surgery.py", "tests/cli/test_ir_diff_compression.py",
             "tests/cli/test_ir_run_bodies.py")),
}
SKIPPED_MODULES = ("__init__.py",)  # package imports only
DIRECT_RUNS = 3  # a module with at most this many mutants to run runs its tests directly, not traced first
UNTRACED_TIMEOUT = 900  # seconds for one untraced run (no traced run measured the tests' time)

# A hypothesis profile for mutants: no example database (a failure found for one mutant must not
# be replayed against the next) and derandomized, so a rerun gives the same result.
PLUGIN = '''
import hypothesis
hypothesis.settings.register_profile("mutation", database=None, derandomize=True)
hypothesis.settings.load_profile("mutation")
'''

# Records which lines of the target modules each test runs (sys.settrace, only in those modules' frames),
# so a mutant runs only the tests that reach it. Lines run outside any test (at import) map to "".
# One traced run serves every sampled module of a group.
COVERAGE_PLUGIN = '''
import json, os, sys, threading
import pytest

TARGETS = set(json.loads(os.environ["MUTATION_TARGETS"]))
lines = {}
current = [""]


def _local(frame, event, arg):
    if event == "line":
        lines.setdefault(frame.f_code.co_filename, {}).setdefault(current[0], set()).add(frame.f_lineno)
    return _local


def _global(frame, event, arg):
    if frame.f_code.co_filename in TARGETS:
        lines.setdefault(frame.f_code.co_filename, {}).setdefault(current[0], set()).add(frame.f_lineno)
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
        json.dump({path: {test: sorted(found) for test, found in tests.items()} for path, tests in lines.items()},
                  out)
'''


# ------------------------------------------------------------------------------------ mutants
@dataclasses.dataclass(frozen=True)
class Mutant:
    """One change to one module: where it is, what it does, and its stable id."""

    path: str  # relative to the source root's parent (src/irgraph/core/shapes.py)
    index: int  # position among the module's mutation sites (the order of the AST walk)
    line: int
    end_line: int
    scope: str  # Dim.floor_div, <module>
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


def _abstract(node: ast.Raise) -> bool:
    """A bare ``raise NotImplementedError``: an abstract method's body, which every concrete class overrides
    (deleting it changes nothing a test can run)."""
    return node.exc is not None and ast.unparse(node.exc) in ("NotImplementedError", "NotImplementedError()")


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
    elif isinstance(node, ast.Raise) and not _abstract(node):
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

    def coverage(self, modules: Sequence[Path], tests: Sequence[str], cwd: Path) -> dict[Path, dict[str, list[int]]]:
        """Per module of ``modules`` (relative to the source root), which of its lines each test runs; ""
        holds the lines run at import. One traced run of ``tests`` for all of them."""
        targets = {str(self.src / module): module for module in modules}
        report = self.plugin_dir / "coverage.json"
        status, _ = self.run(tests, cwd, timeout=1800, options=("-p", "_mutation_coverage"),
                             env={"MUTATION_TARGETS": json.dumps(sorted(targets)), "MUTATION_COVERAGE": str(report)})
        if status != "survived":
            raise SystemExit(f"the tests fail on the unmutated code: {' '.join(tests)}")
        found = json.loads(report.read_text(encoding="utf-8"))
        return {module: found.get(target, {}) for target, module in targets.items()}


def group_coverage(src: Path, modules: Sequence[Path], tests: Sequence[str], cwd: Path
                   ) -> tuple[dict[Path, dict[str, list[int]]], float]:
    """One traced run of ``tests`` over every module of ``modules`` (files under ``src``): the lines each test
    runs per module, and the run's seconds (a mutant's timeout is a multiple of it)."""
    with tempfile.TemporaryDirectory(prefix="irgraph-mutation-") as base:
        space = Workspace(src, Path(base), "trace")
        try:
            started = time.perf_counter()
            found = space.coverage([module.relative_to(src) for module in modules], tests, cwd)
            return {src / module: lines for module, lines in found.items()}, time.perf_counter() - started
        finally:
            space.close()


def _under(test_id: str, tests: Sequence[str]) -> bool:
    """True when the pytest node id ``test_id`` is in one of ``tests`` (files or directories)."""
    path = test_id.partition("::")[0]
    return any(path == test or path.startswith(test.rstrip("/") + "/")
               or ("::" in test and (test_id == test or test_id.startswith((test + "[", test + "::"))))
               for test in tests)


def tests_reaching(mutant: Mutant, coverage: dict[str, list[int]], tests: Sequence[str]) -> list[str] | None:
    """The tests that run the mutated lines (all of ``tests`` for import-time lines); None when no test does."""
    lines = set(range(mutant.line, mutant.end_line + 1))
    if lines & set(coverage.get("", ())):
        return list(tests)
    reaching = [test for test, covered in coverage.items() if test and lines & set(covered)]
    return reaching or None


def run_module(src: Path, module: Path, mutants: Sequence[Mutant], tests: Sequence[str], cwd: Path,
               workers: int = 2, progress: Callable[[Outcome], None] | None = None, *,
               trace: bool = True, traced: tuple[dict[str, list[int]], float] | None = None) -> list[Outcome]:
    """Run the tests of ``tests`` that reach each mutant of ``module`` (a file under ``src``), ``workers`` at a time.

    A mutant no test reaches survives without a run; when pytest cannot run a selection (an odd test
    id), the mutant runs against all of ``tests``. Without ``trace`` every mutant runs all of ``tests``.
    ``traced``: the module's coverage and the traced run's seconds from ``group_coverage`` (no trace here then);
    only the tests in ``tests`` are taken from it.
    """
    relative = module.relative_to(src)
    with tempfile.TemporaryDirectory(prefix="irgraph-mutation-") as base:
        spaces = [Workspace(src, Path(base), f"w{i}") for i in range(workers)]
        started = time.perf_counter()
        if traced is not None:
            coverage = {test: lines for test, lines in traced[0].items() if not test or _under(test, tests)}
            timeout = 3 * traced[1] + 10
        elif trace:
            coverage = spaces[0].coverage([relative], tests, cwd)[relative]
            timeout = 3 * (time.perf_counter() - started) + 10
        else:
            coverage, timeout = {"": [0]}, UNTRACED_TIMEOUT
        free = list(spaces)
        lock = threading.Lock()

        def one(mutant: Mutant) -> Outcome:
            selection = tests_reaching(mutant, coverage, tests) if trace or traced else list(tests)
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

        pool = ThreadPoolExecutor(workers)
        try:
            return list(pool.map(one, mutants))
        finally:  # interrupted: drop the queued mutants, let the running one restore its module
            pool.shutdown(wait=True, cancel_futures=True)
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
    its group's; an op module's also check its tolerance row."""
    relative = module.relative_to(ROOT / "src" / "irgraph")
    if relative.parts[0] != "ops" or len(relative.parts) != 3:
        return group_tests
    own = Path("tests", *relative.parts[:2], f"test_{module.stem}.py")
    tests = (own.as_posix(),) if relative.parts[1] != "families" and (ROOT / own).is_file() else group_tests
    tests += MORE_OWN_TESTS.get("/".join(relative.parts[1:]), ())
    return (*tests, TOLERANCE_TEST)  # the op's tolerance row: docs/tolerances.md is generated from it


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


# ------------------------------------------------------------------------------------ results
def wilson(killed: int, count: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % for z = 1.96) of a kill rate measured on ``count`` random mutants."""
    if count == 0:
        return 0.0, 1.0
    rate = killed / count
    centre = (rate + z * z / (2 * count)) / (1 + z * z / count)
    half = z * ((rate * (1 - rate) / count + z * z / (4 * count * count)) ** 0.5) / (1 + z * z / count)
    return max(0.0, centre - half), min(1.0, centre + half)


def read_results(path: Path = RESULTS_FILE) -> dict[str, dict]:
    """group -> its last recorded run (see ``record``)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def record(results: dict[str, dict], path: Path = RESULTS_FILE) -> None:
    """Replace the entries of the groups just run and regenerate the documents from the whole file."""
    merged = {**read_results(path), **results}
    ordered = {group: merged[group] for group in sorted(merged)}
    path.write_text(json.dumps(ordered, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    render()


def _sample_text(entry: dict) -> str:
    if entry["sample"] is None:
        return "all"
    rechecked = ", survivors rechecked" if entry.get("rechecked") else ""
    return f"{entry['sample']} {entry['sampling']}, seed {entry['seed']}{rechecked}"


def table(results: dict[str, dict]) -> str:
    """The kill rate per group with its Wilson 95 % interval, as a Markdown table."""
    lines = ["| group | mutants | sample | run | killed | survived | equivalent | killed % | 95 % interval |",
             "|---|---:|---|---:|---:|---:|---:|---:|---|"]
    for group, entry in results.items():
        run_count, killed = entry["run"], entry["killed"]
        low, high = wilson(killed, run_count)
        rate = f"{100 * killed / run_count:.1f}" if run_count else "-"
        lines.append(f"| {group} | {entry['mutants']} | {_sample_text(entry)} | {run_count} | {killed} | "
                     f"{run_count - killed} | {entry['equivalent']} | {rate} | {100 * low:.0f}-{100 * high:.0f} % |")
    return "\n".join(lines) + "\n"


def document(results: dict[str, dict]) -> str:
    """docs/mutation.md: the table, then every surviving mutant of the recorded runs."""
    parts = ["# Mutation testing: the recorded kill rates\n\n",
             "Generated by `tests/mutation/run.py --record` from `tests/mutation/results.json`; do not edit by hand.\n",
             "Each row is the last recorded run of a group: a random sample of its mutants (per module or over the\n",
             "whole group), equivalent mutants (`tests/mutation/equivalent.txt`) left out. The interval is the\n",
             "Wilson score interval of the kill rate at 95 % confidence, read as if the sample were a simple\n",
             "random sample of the group (for per-module samples it weighs small modules more than their share).\n",
             "A sample marked \"survivors rechecked\" ran its survivors again (`run.py GROUP --recheck --record`)\n",
             "after tests were added, the source unchanged: those the new tests kill count as killed, those found\n",
             "equivalent leave the sample.\n\n",
             table(results), "\n## Surviving mutants\n"]
    for group, entry in results.items():
        if entry["survivors"]:
            parts.append(f"\n### {group}\n\n")
            parts.extend(f"- `{key}`\n" for key in entry["survivors"])
    return "".join(parts)


def render() -> None:
    """Regenerate docs/mutation.md from the results file."""
    results = read_results()
    DOC_FILE.write_text(document(results), encoding="utf-8")


def serve() -> None:
    """The pytest server of a Workspace: one JSON request per stdin line, the exit code of a forked run back."""
    import hypothesis  # noqa: F401 - imported once here, inherited by every child
    import lxml.etree  # noqa: F401
    import ml_dtypes  # noqa: F401
    import networkx  # noqa: F401
    import numpy  # noqa: F401
    import pytest

    for oracle in ("openvino", "onnx", "onnxruntime"):  # 0.5-1.4 s each, paid by every run whose tests use them
        try:
            __import__(oracle)
        except ImportError:
            pass

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
    parser.add_argument("--group-sample", type=int, help="run this many random mutants per group (over its modules)")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample and --group-sample (default 0)")
    parser.add_argument("--record", action="store_true", help="keep the counts per group in results.json and "
                        "regenerate docs/mutation.md")
    parser.add_argument("--render", action="store_true", help="only regenerate docs/mutation.md "
                        "table from results.json")
    parser.add_argument("--match", action="append", help="run only the mutants whose key contains this text "
                        "(repeatable; to recheck survivors)")
    parser.add_argument("--recheck", action="store_true", help="run again only the recorded survivors of the groups "
                        "(after tests were added; the source unchanged): the killed ones count as killed, the ones "
                        "now listed as equivalent leave the sample; with --record the groups' entries are updated")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="list the mutants without running them")
    parser.add_argument("--list-equivalent", action="store_true", help="list the known-equivalent mutants")
    parser.add_argument("--verbose", action="store_true", help="print every mutant as it finishes")
    args = parser.parse_args(argv)
    equivalent = read_equivalent()
    if args.render:
        render()
        return 0
    if args.list_equivalent:
        for key, reason in equivalent.items():
            print(f"{key}\n    {reason}")
        return 0
    chosen = modules_of(args.modules)
    if not chosen:
        parser.error(f"no module matches {args.modules}")
    survivors: list[Outcome] = []
    stale = set(equivalent)
    started = time.perf_counter()
    # every module's candidates first, so that --group-sample draws over a whole group
    plan: list[tuple[str, Path, tuple[str, ...], list[Mutant]]] = []
    population: dict[str, list[int]] = {}  # group -> [mutants, equivalent]
    for group, module, tests in chosen:
        relative = module.relative_to(ROOT).as_posix()
        every = mutants_of(module, relative)
        stale -= {m.key for m in every}
        mutants = [m for m in every if m.key not in equivalent]
        counts = population.setdefault(group, [0, 0])
        counts[0] += len(mutants)
        counts[1] += len(every) - len(mutants)
        if args.match:
            mutants = [m for m in mutants if any(text in m.key for text in args.match)]
        if args.sample is not None and args.sample < len(mutants):
            chosen_mutants = random.Random(f"{args.seed}:{relative}").sample(mutants, args.sample)
            mutants = sorted(chosen_mutants, key=lambda m: m.index)
        plan.append((group, module, tests, mutants))
    if args.group_sample is not None:
        for group in population:
            pool = [m for g, _, _, mutants in plan if g == group for m in mutants]
            if args.group_sample < len(pool):
                keep = {m.key for m in random.Random(f"{args.seed}:{group}").sample(pool, args.group_sample)}
                plan = [(g, module, tests, [m for m in mutants if g != group or m.key in keep])
                        for g, module, tests, mutants in plan]
    if args.recheck:
        return _recheck(plan, population, equivalent, args)
    results: dict[str, dict] = {
        group: {"mutants": total, "equivalent": excluded, "run": 0, "killed": 0, "survivors": [],
                "sample": args.group_sample if args.group_sample is not None else args.sample,
                "sampling": "per group" if args.group_sample is not None else "per module", "seed": args.seed}
        for group, (total, excluded) in population.items()}
    group_traces: dict[str, tuple[dict[Path, dict[str, list[int]]], float] | None] = {}
    try:
        for group, module, tests, mutants in plan:
            relative = module.relative_to(ROOT).as_posix()
            if not mutants:
                continue
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
            if group not in group_traces:
                group_traces[group] = _trace_group(group, plan)
            traced = group_traces[group]
            # A few mutants run the tests directly: cheaper than the traced run that picks the tests per line.
            outcomes = run_module(ROOT / "src", module, mutants, tests, ROOT, args.workers, show,
                                  trace=len(mutants) > DIRECT_RUNS,
                                  traced=(traced[0][module], traced[1]) if traced is not None else None)
            killed = sum(o.status != "survived" for o in outcomes)
            entry = results[group]
            entry["run"] += len(outcomes)
            entry["killed"] += killed
            entry["survivors"] += sorted(o.mutant.key for o in outcomes if o.status == "survived")
            survivors += [o for o in outcomes if o.status == "survived"]
            rate = 100 * killed / len(outcomes) if outcomes else 100.0
            print(f"{relative}: {killed}/{len(outcomes)} killed ({rate:.1f} %), "
                  f"{time.perf_counter() - module_start:.0f} s", flush=True)
    except KeyboardInterrupt:  # a timeout: keep what finished (the table shows how many ran)
        print("\ninterrupted: the modules that finished are counted", flush=True)
    if args.list:
        return 0
    print("\nsurviving mutants:")
    for o in sorted(survivors, key=lambda o: (o.mutant.path, o.mutant.line)):
        note = f" ({o.note})" if o.note else ""
        print(f"  {o.mutant.path}:{o.mutant.line}: {o.mutant.before} -> {o.mutant.after}{note}   [{o.mutant.key}]")
    print("\nkill rate per group (equivalent mutants excluded), Wilson 95 % interval:")
    for group, entry in results.items():
        low, high = wilson(entry["killed"], entry["run"])
        print(f"  {group:24} {entry['killed']}/{entry['run']} = {100 * entry['killed'] / max(entry['run'], 1):.1f} % "
              f"[{100 * low:.0f}-{100 * high:.0f} %] of {entry['mutants']} ({entry['equivalent']} equivalent)")
    if args.record and not args.match:
        record({group: entry for group, entry in results.items() if entry["run"]})
    if stale and not args.modules and args.sample is None and args.group_sample is None:
        print("\nequivalent.txt lists mutants that no longer exist (remove them):")
        for key in sorted(stale):
            print(f"  {key}")
    print(f"\n{time.perf_counter() - started:.0f} s in all")
    return 0


def _recheck(plan: list[tuple[str, Path, tuple[str, ...], list[Mutant]]], population: dict[str, list[int]],
             equivalent: dict[str, str], args: argparse.Namespace) -> int:
    """Run the recorded survivors of the planned groups again; update their entries with --record."""
    recorded = read_results()
    results: dict[str, dict] = {}
    for group, (total, excluded) in population.items():
        if group not in recorded:
            raise SystemExit(f"{group}: no recorded run to recheck")
        entry = dict(recorded[group], mutants=total, equivalent=excluded, rechecked=True)
        now_equivalent = [key for key in entry["survivors"] if key in equivalent]
        entry["run"] -= len(now_equivalent)
        entry["survivors"] = [key for key in entry["survivors"] if key not in equivalent]
        results[group] = entry
    plan = [(group, module, tests, [m for m in mutants if m.key in results[group]["survivors"]])
            for group, module, tests, mutants in plan]
    traces: dict[str, tuple[dict[Path, dict[str, list[int]]], float] | None] = {}
    for group, module, tests, again in plan:
        entry = results[group]
        if not again:
            continue
        if group not in traces:  # one traced run picks each survivor's tests (untraced, each ran them all)
            traces[group] = _trace_group(group, plan)
        traced = traces[group]
        outcomes = run_module(ROOT / "src", module, again, tests, ROOT, args.workers, trace=len(again) > DIRECT_RUNS,
                              traced=(traced[0][module], traced[1]) if traced is not None else None)
        for outcome in outcomes:
            print(f"  {outcome.status:8} {outcome.seconds:5.1f}s {outcome.mutant.key}", flush=True)
            if outcome.status != "survived":
                entry["killed"] += 1
                entry["survivors"].remove(outcome.mutant.key)
    for group, entry in results.items():  # survivors whose code moved stay survivors
        print(f"  {group:24} {entry['killed']}/{entry['run']} = {100 * entry['killed'] / max(entry['run'], 1):.1f} %")
    if args.record:
        record(results)
    return 0


def _trace_group(group: str, plan: Sequence[tuple[str, Path, tuple[str, ...], list[Mutant]]]
                 ) -> tuple[dict[Path, dict[str, list[int]]], float] | None:
    """One traced run for all of a group's modules that have mutants to run, when they are more than a few
    (a sample spread over many modules would otherwise pay one traced run per module); None when not worth it."""
    members = [(module, tests) for g, module, tests, mutants in plan if g == group and mutants]
    if sum(len(mutants) for g, _, _, mutants in plan if g == group) <= DIRECT_RUNS or len(members) < 2:
        return None
    union = list(dict.fromkeys(test for _, tests in members for test in tests))
    found, seconds = group_coverage(ROOT / "src", [module for module, _ in members], union, ROOT)
    print(f"{group}: traced {len(members)} modules with {len(union)} test paths in {seconds:.0f} s", flush=True)
    return found, seconds


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # a timeout's SIGTERM cleans up as Ctrl-C does (temporary copies, servers)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        signal.signal(signal.SIGTERM, _interrupt)
        sys.exit(main())
