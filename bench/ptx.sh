#!/usr/bin/env bash
# make ptx (no GPU needed): the PTX of every step's kernels, build/ptx/<step>.ptx, compiled
# from <step>/reduce.cu as make compiles it (the same -I flags) for one architecture; and
# their SASS, build/ptx/<step>.sass, where cuobjdump is installed. Then a few greps to try.
#   bash bench/ptx.sh          ARCH=sm_NN (default sm_90); NVCC=path
set -uo pipefail
cd "$(dirname "$0")/.." || exit 3
program=ptx
# shellcheck source=bench/common.sh
source bench/common.sh

DEFAULT_ARCH=sm_90
OUT=build/ptx
NVCC_FLAGS=(-std=c++17 -O3 -lineinfo)    # the Makefile's NVCCFLAGS that shape the code

main() {
    local arch=${ARCH:-$DEFAULT_ARCH} nvcc cuobjdump directory source flags failed=() made=0
    [ $# -eq 0 ] || die 2 "no arguments (ARCH=sm_NN chooses the architecture)"
    [[ $arch =~ ^sm_[0-9]+[a-z]?$ ]] || die 2 "ARCH must look like sm_90, not '$arch'"
    nvcc=$(find_tool nvcc "${NVCC:-}") || die 3 "nvcc is missing: set NVCC or CUDA_HOME"
    cuobjdump=$(find_tool cuobjdump "${CUOBJDUMP:-}") || cuobjdump=
    load_ladder
    mkdir -p "$OUT"
    for directory in "${LADDER[@]}"; do
        source=$directory/reduce.cu
        # step15 has no kernel of its own: it links step13's
        [ -f "$source" ] || { note "$directory has no reduce.cu (its kernels are another step's): left out"; continue; }
        flags=("${NVCC_FLAGS[@]}" -arch="$arch" -Icommon -I"$directory")
        if ! "$nvcc" "${flags[@]}" -ptx "$source" -o "$OUT/$directory.ptx"; then
            failed+=("$directory"); continue
        fi
        made=$((made + 1))
        if [ -n "$cuobjdump" ]; then
            "$nvcc" "${flags[@]}" -cubin "$source" -o "$OUT/$directory.cubin" &&
                "$cuobjdump" -sass "$OUT/$directory.cubin" >"$OUT/$directory.sass" ||
                failed+=("$directory (SASS)")
        fi
    done
    note "wrote the PTX of $made step(s) for $arch: $OUT/<step>.ptx"
    if [ -n "$cuobjdump" ]; then
        note "and their SASS: $OUT/<step>.sass"
    else
        note "no SASS: cuobjdump is not installed here (it comes with the CUDA toolkit, package" \
             "cuda-cuobjdump; CUOBJDUMP=path names one). The PTX is the compiler's intermediate" \
             "code; SASS is what the GPU runs."
    fi
    cat <<EOF

Things to look for:
  grep -c bar.sync $OUT/*.ptx                   # __syncthreads() calls left in each step's code
  grep -c ld.volatile.shared $OUT/step05_unroll_warp.ptx   # the volatile variant's last warp
  grep -l shfl.sync $OUT/*.ptx                  # the steps that use warp shuffles
  grep atom. $OUT/step09_last_block.ptx         # the ticket, and atomicAdd of the block sums
  grep -o 'ld.global[^ ]*' $OUT/step09_last_block.ptx $OUT/step10_vector_loads.ptx | sort | uniq -c
                                                # 4-byte loads, then 16-byte ones (v4)
  grep -c LDG.E.128 $OUT/step10_vector_loads.sass   # the same in SASS (with cuobjdump)
  grep -o 'ld.global.nc[^ ]*' $OUT/step11_in_flight.ptx | sort | uniq -c   # the read-only path (__ldg)
  grep -A2 'entry _Z12reduce_small' $OUT/step12_small_n.ptx   # the one-block kernel
  grep -E 'membar|fence|atom' $OUT/step12_small_n.ptx $OUT/step13_gather.ptx   # the ticket's fence, and none in step13
EOF
    if [ ${#failed[@]} -gt 0 ]; then
        note "FAILED: ${failed[*]} (nvcc's messages are above)"
        exit 1
    fi
}

main "$@"
