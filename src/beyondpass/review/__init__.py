"""Blind side-by-side human review (the seed's human evaluation phase): a study built from a
run, a small web app for reviewers, and the results (Table 4, agreement, tests). The core
registers its command (``beyondpass review``) and report section (``beyondpass.core``)."""
