"""Questions asked of a whole model: shape inference (``shape_inference``) and validation (``validation``)."""
