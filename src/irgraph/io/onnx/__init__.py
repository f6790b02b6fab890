"""ONNX both ways: ``importer`` (ONNX -> IR, with ``split`` for the Split/Concat family), ``exporter`` (IR -> ONNX)."""
