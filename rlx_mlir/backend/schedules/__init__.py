"""Transform-dialect schedules used by the lowering pipelines, as package data.

``main.mlir`` is the entry point; each other file is the library of one op kind (see
``pipelines.SCHEDULE_LIBRARIES``). The compile cache keys on each file's contents, so an
edit rebuilds.
"""
