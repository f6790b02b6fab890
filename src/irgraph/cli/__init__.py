"""Command-line tools: ir-run, ir-validate, ir-convert, ir-info (thin wrappers over the library)."""
