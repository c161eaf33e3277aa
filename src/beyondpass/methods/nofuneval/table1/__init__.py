"""Table 1 from the authors' published generations (``nofuneval table1``): reading their
files (``published``), scoring them (``score``) and the Markdown (``render``)."""
