"""ObfusEval's own benchmark as its authors published it: real C projects (redis, lvgl,
fluent-bit, libgit2, libvips), their functions in eight settings, four models' answers
with the authors' recorded compile and test outcomes, and the paper's CPR/TPR tables.

``location`` finds a checkout of the published repository, ``workbook`` reads its xlsx
files, ``settings`` names the projects, settings and models (and the authors' file names
that say otherwise), ``outcomes`` gives every recorded outcome cell a stated status,
``answers`` reads the models' answer files whatever their column schema, ``tasks`` the
inputs of every setting and the symbol dictionaries, ``paper`` the paper's tables, and
``table`` puts the CPR/TPR the recorded outcomes give beside the paper's cells.
"""
