"""TensorIterator, Loop and If: their bodies' inference (``inference``), checks (``validation``) and runners
(``runners``). It sees the graph; the analysis and runtime layers above ask it about sub-graphs."""
