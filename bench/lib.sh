# lib.sh - helpers the bench scripts share. Sourced, not run.
# median: of the numbers on stdin, one a line; for an even count the mean
# of the two middle ones (so every script's "median" is the same figure).
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

# ratio_median LIST LIST0: the median of the per-round ratios LIST/LIST0
# (space-separated, one value per round, same order): within a round the
# machine's load hits both alike, so this ratio is steadier than the
# ratio of the medians.
# shellcheck disable=SC2086  # each list splits into one value a line
ratio_median() { paste <(printf '%s\n' $1) <(printf '%s\n' $2) | awk '$1 != "nan" && $2 != "nan" && $2 > 0 {print $1 / $2}' | median; }
