"""From stored verdicts to numbers: pass@k, aggregates, confidence intervals."""
