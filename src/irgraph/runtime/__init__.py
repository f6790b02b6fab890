"""Execution: the Interpreter, its plan, state, marking and the precision policies of a run."""
