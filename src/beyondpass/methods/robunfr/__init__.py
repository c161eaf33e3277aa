"""RobuNFR (seed 000): NFR-aware prompt variation and its metrics."""
