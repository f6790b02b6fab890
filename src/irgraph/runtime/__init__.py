"""Running a model: the Interpreter and its plan, state (ReadValue/Assign), marking, in-place reuse, threads,
and the precision policy of weight decompression chains."""
