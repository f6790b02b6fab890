"""Reading and writing IR files: ``xml/`` (the IR XML), ``weights`` (the .bin) and ``onnx/`` (ONNX both ways).

``atomic`` and ``regular_file`` are shared by all three: writes that never damage an existing file,
and reads that refuse anything but regular files.
"""
