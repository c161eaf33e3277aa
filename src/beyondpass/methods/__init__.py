"""Method packages: each one brings everything a method needs and registers itself."""
