"""Reading and writing IR files: the XML, the .bin weights and ONNX."""
