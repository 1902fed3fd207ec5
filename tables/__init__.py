"""Table-game progressives: Caribbean Stud and Casino Hold'em (Jumbo 7) on the progressive engine."""
