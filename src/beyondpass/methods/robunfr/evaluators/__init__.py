"""RobuNFR's evaluators: pylint smells and readability, exception handling, LOC."""
