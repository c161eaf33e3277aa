"""RobuNFR: robustness of code generation to how non-functional requirements are phrased."""
