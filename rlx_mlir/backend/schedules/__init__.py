"""Transform-dialect schedules used by the lowering pipelines, as package data.

File names carry a version (``optimizing-v3.mlir``): the compile cache keys on pipeline
flags, which name the file, so a changed schedule must get a new name.
"""
