"""How ``python -m dtree.bench`` times its calls, in one place for its tables."""

# predict is short: its time is the best of at least this many calls (one run is
# mostly noise, and the first call also lays the trees out for the kernel)
PREDICT_REPEAT = 3
