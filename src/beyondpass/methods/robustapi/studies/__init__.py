"""RobustAPI's built-in study files."""
