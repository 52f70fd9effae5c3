#!/usr/bin/env python3
"""torch.sum(x, dim=1) beside step16 (bench/bench.sh runs it where PyTorch sees a GPU).

  torch_rows.py SHAPE...      (SHAPE: ROWSxCOLS)
      prints step16's CSV header, then a row per shape and flush: a float32 matrix of the
      integers 0..99, its row sums by torch.sum(x, dim=1) timed with CUDA events, the L2
      emptied before each run as step16 empties it (reading, or writing, a buffer four times
      its size), 4 copies read in turn, the median of 50 runs after 3 untimed ones. rows_wrong
      counts rows whose sum differs from the exact one (integer data: a float sum below 2^24
      is exact). No CUB columns: 0."""
import statistics
import sys

import torch

WARMUP, ITERS, COPIES, L2_CAPACITIES = 3, 50, 4, 4
UNIFORM_VALUES = 100
HEADER = ("step,kernel,type,rows,cols,pattern,flush,rows_wrong,ms_median,ms_min,gb_per_s,"
          "peak_pct,cub_ms_median,ratio_to_cub,flat_cub_ms_median,ratio_to_flat_cub,device,cuda")


def l2_bytes(device):
    properties = torch.cuda.get_device_properties(device)
    return getattr(properties, "L2_cache_size", 64 << 20)


def measure(rows, cols, flush, scratch):
    generator = torch.Generator(device="cuda").manual_seed(2026)
    copies = [torch.randint(0, UNIFORM_VALUES, (rows, cols), device="cuda", generator=generator,
                            dtype=torch.int32).to(torch.float32) for _ in range(COPIES)]
    exact = copies[0].to(torch.float64).sum(dim=1)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for run in range(WARMUP + ITERS):
        if flush == "write":
            scratch.zero_()
        else:
            scratch.sum()
        start.record()
        sums = torch.sum(copies[run % COPIES], dim=1)
        stop.record()
        stop.synchronize()
        if run >= WARMUP:
            times.append(start.elapsed_time(stop))
    wrong = int((torch.sum(copies[0], dim=1).to(torch.float64) != exact).sum().item()) if rows else 0
    del sums
    return wrong, statistics.median(times), min(times)


def main(argv):
    device = torch.cuda.current_device()
    name = torch.cuda.get_device_name(device)
    scratch = torch.empty(L2_CAPACITIES * l2_bytes(device) // 4, device="cuda", dtype=torch.float32)
    scratch.zero_()
    print(HEADER)
    for shape in argv[1:]:
        rows, cols = (int(part) for part in shape.split("x"))
        for flush in ("read", "write"):
            wrong, median, fastest = measure(rows, cols, flush, scratch)
            gb_per_s = (rows * cols * 4 + rows * 4) / (median * 1e6)
            print("torch,torch.sum(dim=1),float,%d,%d,uniform,%s,%d,%.6f,%.6f,%.2f,0,0,0,0,0,%s,%s"
                  % (rows, cols, flush, wrong, median, fastest, gb_per_s, name, torch.version.cuda))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
