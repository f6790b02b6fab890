"""Questions asked of a whole model: shape inference (``shape_inference``), validation (``validation``) and its weight
decompression chains (``decompression_chains``)."""
