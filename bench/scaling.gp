# make charts: GB/s against n on a log-2 axis, one line per step and a thick one for CUB.
# bench/charts.sh runs `gnuplot settings.gp bench/scaling.gp` (see ladder.gp).
set terminal svg size 1040,600 dynamic enhanced font "Helvetica,13" background rgb "white"
set output scaling_svg
set title sprintf("Bandwidth against input size: %s, CUDA %s, %s", \
                  device, cuda_version, date) noenhanced
set logscale x 2
set format x "2^{%L}"
set xtics 4
set xlabel "n (floats)"
set ylabel "effective bandwidth, GB/s (bytes read / time)"
set yrange [0:1.1 * peak_gb_per_s]
set grid lc rgb "#dddddd"
set key outside right top noenhanced
# Every line its own pair of colour and dash, and its own point type: eight colours that stay
# apart (Paul Tol's muted scheme), solid for the first eight series, dashed for the next eight,
# dotted after that; point types 1 to 15 (gnuplot's +, x, *, squares, circles, triangles,
# diamonds, pentagons, open and filled) in turn.
array colours[8] = ["#332288", "#88ccee", "#44aa99", "#117733", "#999933", "#ddcc77", \
                    "#cc6677", "#aa4499"]
COLOURS = 8
POINT_TYPES = 15
plot for [i=1:series_count] steps_data index (i - 1) using 1:2 \
         with linespoints lw 1.8 dt 1 + (i - 1) / COLOURS pt 1 + (i - 1) % POINT_TYPES \
         ps 0.7 lc rgb colours[(i - 1) % COLOURS + 1] title series_titles[i], \
     cub_data using 1:2 with linespoints lw 3.5 pt 5 ps 0.6 lc rgb "black" title "CUB", \
     peak_gb_per_s with lines dt 3 lw 2 lc rgb "#555555" \
         title sprintf("peak %.0f GB/s", peak_gb_per_s)
