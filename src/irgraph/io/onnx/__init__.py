"""ONNX both ways: ``importer`` (ONNX -> IR: ``converter`` walks the graph, ``import_rules`` holds one rule per ONNX
op type) and ``exporter`` (IR -> ONNX, ``export_rules`` one rule per op class)."""
