"""Infrastructure ops (OpenVINO's spec category). The registry imports each op module when a model first uses
its type (registry.lookup), as in every other category: a model without state ops creates no ReadValue or
Assign classes."""
