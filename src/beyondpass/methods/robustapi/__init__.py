"""RobustAPI (seed 001): API misuse in Java answers to Stack Overflow questions."""
