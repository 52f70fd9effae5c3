# make charts: GB/s of every step at n = 2^25 as bars; CUB and the peak as horizontal lines.
# bench/charts.sh runs `gnuplot settings.gp bench/ladder.gp`: settings.gp (chart_data.py)
# names the data files, the output and the numbers used here.
set terminal svg size 960,540 dynamic enhanced font "Helvetica,13" background rgb "white"
set output ladder_svg
set title sprintf("Reduction ladder at n = 2^25 floats (128 MiB): %s, CUDA %s, %s", \
                  device, cuda_version, date) noenhanced
set ylabel "effective bandwidth, GB/s (bytes read / time)"
set xrange [-0.6:bar_count - 0.4]
headroom = 1.15
set yrange [0:headroom * (peak_gb_per_s > cub_gb_per_s ? peak_gb_per_s : cub_gb_per_s)]
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.7
set grid ytics lc rgb "#dddddd"
set key top left box opaque
set xtics nomirror noenhanced
set samples 2
plot ladder_data using 1:3:xtic(2) with boxes lc rgb "#4477aa" \
         title "step, median of the timed runs", \
     '' using 1:3:(sprintf("%.0f", $3)) with labels offset 0,0.8 notitle, \
     cub_gb_per_s with lines dt 2 lw 2 lc rgb "#cc3311" \
         title sprintf("cub::DeviceReduce::Sum %.0f GB/s", cub_gb_per_s) noenhanced, \
     peak_gb_per_s with lines dt 3 lw 2 lc rgb "#222222" \
         title sprintf("theoretical peak %.0f GB/s", peak_gb_per_s)
