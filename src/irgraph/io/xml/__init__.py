"""IR XML: the reader, the writer, rt_info, tensor names, hardening and the schema pass.

Dependencies point one way: ``reader`` -> ``_fast`` (the fast paths, behind one switch) / ``sub_graphs`` ->
``layers`` -> ``context``, ``rt_info``, ``names``, ``security``; ``writer`` and ``file_validation`` sit on
top of the reader.
"""
