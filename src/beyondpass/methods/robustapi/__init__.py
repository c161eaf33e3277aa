"""RobustAPI: API misuse in answers to Stack Overflow questions about Java APIs."""
