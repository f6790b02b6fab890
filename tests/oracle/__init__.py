"""Oracle helpers: golden IR models and reference outputs produced by the real OpenVINO."""
