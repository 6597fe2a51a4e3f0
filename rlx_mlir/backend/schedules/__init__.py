"""Transform-dialect schedules used by the lowering pipelines, as package data.

File names carry a version (``optimizing-v3.mlir``) for readers of cached pipeline flags;
the compile cache also keys on each schedule file's contents, so an edit rebuilds.
"""
