"""Shape ops: ShapeOf, Reshape, Squeeze, Unsqueeze."""
