"""Method packages: everything one evaluation method brings, registered with the registry."""
