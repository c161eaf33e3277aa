"""Built-in NoFunEval study files."""
