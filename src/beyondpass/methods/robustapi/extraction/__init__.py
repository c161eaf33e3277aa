"""Reading RobustAPI answers: the ``<<<code>>>`` answer format and the Java parser."""
