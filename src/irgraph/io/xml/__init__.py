"""IR XML: the reader (with its fast path), the writer, rt_info, tensor names, hardening and the schema pass.

Dependencies point one way: ``reader`` -> ``fast_reader`` / ``sub_graphs`` -> ``layers`` -> ``context``,
``rt_info``, ``names``, ``security``; ``writer`` and ``file_validation`` sit on top of the reader.
"""
