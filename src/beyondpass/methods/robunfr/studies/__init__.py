"""RobuNFR's built-in study files."""
