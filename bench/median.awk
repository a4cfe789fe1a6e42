# Medians for the benchmark reports (bench/run, bench/scale), loaded
# before each report's own program: awk -f bench/median.awk -f PROGRAM.

# sort(a, n): a[1..n] in ascending order, in place (insertion sort: a
# benchmark has a few runs per value).
function sort(a, n,    i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }

# median(a, n): the median of a[1..n], which it sorts.
function median(a, n) { sort(a, n); return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
