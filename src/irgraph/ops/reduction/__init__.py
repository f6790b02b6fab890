"""Reductions over axes (ReduceSum, ReduceMean, ...): members of irgraph.ops.families.reduction."""
