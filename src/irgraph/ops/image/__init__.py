"""Image ops (Interpolate): resizing along spatial axes."""
