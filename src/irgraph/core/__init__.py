"""The ground floor: errors, shared limits, diagnostics, element types, shapes and integer helpers.

Nothing here imports any other part of irgraph, so every layer above may use it.
"""
