"""The mutation tool itself (tests/mutation/run.py): it finds the mutants of a tiny module, its tests kill them."""

from __future__ import annotations

from pathlib import Path

from tests.mutation import run

TINY = '''
def clamp(value, low, high):
    if value < low:
        return low
    return high if value > high else value


def unused():
    raise ValueError("never called")
'''

TESTS = '''
from tiny import clamp

def test_clamp():
    assert [clamp(v, 2, 5) for v in (0, 2, 3, 5, 9)] == [2, 2, 3, 5, 5]
'''

def mutate_tiny(tmp_path: Path, tests: str) -> dict[str, str]:
    (tmp_path / "src").mkdir()
    module = tmp_path / "src" / "tiny.py"
    module.write_text(TINY, encoding="utf-8")
    (tmp_path / "test_tiny.py").write_text(tests, encoding="utf-8")
    mutants = run.mutants_of(module, "tiny.py")
    outcomes = run.run_module(tmp_path / "src", module, mutants, ["test_tiny.py"], tmp_path, workers=1)
    return {f"{o.mutant.line}: {o.mutant.before} -> {o.mutant.after}": o.status + (f" ({o.note})" if o.note else "")
            for o in outcomes}


def test_the_tests_kill_every_mutant_but_the_equivalent_and_unreached_ones(tmp_path):
    assert mutate_tiny(tmp_path, TESTS) == {
        "3: value < low -> value <= low": "survived",  # equivalent: clamp(2, 2, 5) is 2 either way
        "3: value < low -> value >= low": "killed",
        "4: return low -> return None": "killed",
        "5: return high if value > high else value -> return None": "killed",
        "5: value > high -> value >= high": "survived",  # equivalent, likewise
        "5: value > high -> value <= high": "killed",
        "9: raise ValueError('never called') -> pass": "survived (no test reaches it)",
    }



def test_every_module_belongs_to_exactly_one_group_and_every_mapped_test_exists():
    modules = [module.relative_to(run.ROOT).as_posix() for _, module, _ in run.modules_of([])]
    on_disk = sorted(p.relative_to(run.ROOT).as_posix() for p in (run.ROOT / "src" / "irgraph").rglob("*.py")
                     if p.name not in run.SKIPPED_MODULES)
    assert sorted(modules) == on_disk  # none missing, none twice
    missing = {test for _, (_, tests) in run.GROUPS.items() for test in tests
               if not (run.ROOT / test.partition("::")[0]).exists()}  # a file, a directory or one test of a file
    assert not missing


def test_every_known_equivalent_mutant_still_exists():
    """equivalent.txt follows moved and edited code: each key names a mutant the tool finds today."""
    keys = run.read_equivalent()
    paths = {key.split("::")[0] for key in keys}
    found = {m.key for path in paths if (run.ROOT / path).is_file() for m in run.mutants_of(run.ROOT / path, path)}
    assert sorted(set(keys) - found) == []


def test_the_recorded_figures_are_the_generated_ones():
    """docs/mutation.md is generated from results.json (run.py --render), never typed."""
    results = run.read_results()
    assert run.DOC_FILE.read_text(encoding="utf-8") == run.document(results)


def test_wilson_interval():
    low, high = run.wilson(54, 60)  # 90 % of 60: 79.9 % to 95.3 % (Wilson, 1927; z = 1.96)
    assert (round(100 * low, 1), round(100 * high, 1)) == (79.9, 95.3)
    assert round(run.wilson(60, 60)[1], 12) == 1.0 and run.wilson(0, 0) == (0.0, 1.0)


def test_a_test_id_is_under_the_files_directories_and_single_tests_a_group_names():
    named = ("tests/core", "tests/io/test_atomic.py", "tests/hostile/test_x.py::test_one")
    assert run._under("tests/core/test_shapes.py::test_a", named)
    assert run._under("tests/io/test_atomic.py::test_b[1]", named)
    assert run._under("tests/hostile/test_x.py::test_one[case]", named)
    assert not run._under("tests/hostile/test_x.py::test_two", named)
    assert not run._under("tests/core_more/test_y.py::test_c", named)
