"""The builders' typed stubs are what irgraph.builders.stubgen makes from the op classes today."""

from __future__ import annotations

from irgraph.builders import stubgen


def test_the_checked_in_stubs_are_up_to_date():
    stale = [path for path, text in stubgen.generate().items()
             if not (stubgen.PACKAGE / path).is_file() or (stubgen.PACKAGE / path).read_text("utf-8") != text]
    assert stale == [], "run: PYTHONPATH=src python -m irgraph.builders.stubgen"


def test_no_stale_generated_file_is_left_behind():
    generated = set(stubgen.generate())
    on_disk = {str(path.relative_to(stubgen.PACKAGE)) for path in (stubgen.PACKAGE / "builders").rglob("*.pyi")}
    on_disk |= {str(path.relative_to(stubgen.PACKAGE)) for path in (stubgen.PACKAGE / "builders").glob("opset*.py")}
    assert on_disk - generated == set()


def test_every_op_version_has_a_signature_and_each_opset_stub_exports_its_builders():
    files = stubgen.generate()
    signatures = "".join(text for path, text in files.items() if path.startswith("builders/_signatures/"))
    # 241 registered versions but Parameter, Constant and Result (hand-written) and If, Loop, TensorIterator (bodies)
    assert signatures.count("\ndef ") == 235
    assert "def mat_mul_1(\n    a: OutputPort | ArrayLike,\n    b: OutputPort | ArrayLike,\n    *,\n" \
        "    transpose_a: bool = ...,\n" in signatures
    assert "from irgraph.builders._signatures.pooling import max_pool_14 as max_pool" in files["builders/opset16.pyi"]
    assert "from irgraph.builders._signatures.pooling import max_pool_8 as max_pool" in files["builders/opset13.pyi"]
    assert "from irgraph.ops.pooling.max_pool import MaxPool14 as MaxPool" in files["ops/__init__.pyi"]


def test_every_generated_module_stays_under_500_lines():
    assert {path: text.count("\n") for path, text in stubgen.generate().items() if text.count("\n") >= 500} == {}


def test_the_ops_stub_declares_every_name_irgraph_ops_exports():
    """A type checker reads ops/__init__.pyi instead of ops/__init__.py: a name added there must reach the stub."""
    import irgraph.ops

    declared = {name for _, name in stubgen._OWN} | {"CATEGORIES", "BUILDERS"}
    assert set(irgraph.ops.__all__) | {"BUILDERS", "catalogue"} <= declared
    stub = stubgen.generate()["ops/__init__.pyi"]
    assert all(f" as {name}\n" in stub or f"{name}:" in stub for name in declared)


def test_write_writes_each_generated_file_once_then_only_what_changed(tmp_path):
    generated = stubgen.generate()
    assert sorted(str(path.relative_to(tmp_path)) for path in stubgen.write(tmp_path)) == sorted(generated)
    assert stubgen.write(tmp_path) == []
    first = sorted(generated)[0]
    (tmp_path / first).write_text("stale", encoding="utf-8")
    assert stubgen.write(tmp_path) == [tmp_path / first]
    assert (tmp_path / first).read_text(encoding="utf-8") == generated[first]


def test_stub_imports_are_in_isort_s_order_by_module_then_name_case_insensitively_then_exactly():
    imports = [("irgraph.b", "x", "_x"), ("irgraph.a", "zeta", "_z"), ("irgraph.a", "Alpha", "_a2"),
               ("irgraph.a", "alpha", "_a1"), ("irgraph.a", "ALPHA", "_a0")]
    assert stubgen._import_lines(imports) == [
        "from irgraph.a import ALPHA as _a0", "from irgraph.a import Alpha as _a2",
        "from irgraph.a import alpha as _a1", "from irgraph.a import zeta as _z", "from irgraph.b import x as _x"]
