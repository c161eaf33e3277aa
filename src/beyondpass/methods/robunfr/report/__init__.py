"""The RobuNFR part of a run's report: paper tables, statistics, failures and plots."""
