"""Power cuts: the real product killed with SIGKILL mid-game and started again."""
