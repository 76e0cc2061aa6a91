"""Runtime support of s2s-rewritten programs (never imports the s2s tool)."""
