"""Python baselines for the accel GPU benchmarks: CuPy (and cuBLAS through it), PyTorch eager and
torch.compile, on the same cases and sizes as benches/benches/gpu.rs.

    python3 baselines.py [runs] > python.jsonl
    BASELINES_ONLY=sparse python3 baselines.py [runs]   (only the sparse matrix-vector products)
    BASELINES_ONLY=icfp python3 baselines.py [runs]     (only N-body, Mandelbrot, Canny and fluid flow)
    BASELINES_ONLY=stream python3 baselines.py [runs]   (only copy, saxpy, Black-Scholes, sums, scans
                                                         and dot products)
    BASELINES_ONLY=segments python3 baselines.py [runs] (only the segmented sums)

Timing as in the Rust benchmark and cub_bench.cu: CUDA events around each call, 3 warm-up calls,
the median of `runs` timed calls; inputs uniform random in [0, 1) (never zeros), resident on the
device. One JSON object per line (see compare.py). A baseline that fails prints its error to
stderr and is left out.
"""

import json
import math
import os
import statistics
import sys

import cupy as cp
import torch

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
SIZES = [1 << 16, 1 << 20, 1 << 24, 1 << 28]
BS_N = 20_000_000


def time_us(call):
    """Median and minimum of RUNS calls in microseconds, each between two CUDA events."""
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(RUNS):
        start.record()
        call()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times), min(times)


def report(impl, bench, n, bytes_, call, param=""):
    try:
        med, low = time_us(call)
    except Exception as e:  # a baseline missing from this machine's stack: say so, go on
        print(f"{impl} {bench} {n} {param}: {type(e).__name__}: {e}", file=sys.stderr)
        return
    print(json.dumps({"impl": impl, "bench": bench, "n": n, "param": param,
                      "median_us": round(med, 3), "min_us": round(low, 3), "bytes": bytes_}), flush=True)


def rand(n, seed, lo=0.0, hi=1.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.rand(n, device="cuda", generator=g) * (hi - lo) + lo


def cupy_of(t):
    return cp.from_dlpack(t)


# Runs CuPy's kernels on PyTorch's current stream, so that the events time them.
cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream).use()


# --- sparse matrix-vector product (cuSPARSE through cupyx) -----------------------------------------
GOLDEN, MIX1, MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def draws(seed, n):
    """Draws 0..n of the SplitMix64 stream starting at `seed`, as accel_benches::draw makes them
    (unsigned arithmetic on the device wraps, as Rust's wrapping_mul does)."""
    z = cp.uint64(seed) + (cp.arange(1, n + 1, dtype=cp.uint64) * cp.uint64(GOLDEN))
    z = (z ^ (z >> cp.uint64(30))) * cp.uint64(MIX1)
    z = (z ^ (z >> cp.uint64(27))) * cp.uint64(MIX2)
    return z ^ (z >> cp.uint64(31))


def sparse_matrix(rows, per_row, seed):
    """accel_benches::sparse_matrix: CSR offsets, columns and values of the same matrix."""
    if per_row:
        lengths = cp.full(rows, per_row, dtype=cp.int64)
    else:
        u = ((draws(seed, rows) >> cp.uint64(40)) + cp.uint64(1)).astype(cp.float64) / float(1 << 24)
        lengths = cp.floor(11.0 * cp.power(u, -2.0 / 3.0)).astype(cp.int64)
    offsets = cp.concatenate([cp.zeros(1, dtype=cp.int64), cp.cumsum(lengths)])
    nnz = int(offsets[-1])
    columns = (draws(seed + 1, nnz) % cp.uint64(rows)).astype(cp.int32)
    values = (draws(seed + 2, nnz) >> cp.uint64(40)).astype(cp.float32) / float(1 << 24)
    return offsets, columns, values


def sparse():
    import cupyx.scipy.sparse as sp

    rows = 1 << 22
    x = (draws(8, rows) >> cp.uint64(40)).astype(cp.float32) / float(1 << 24)
    for label, per_row in [("32 per row", 32), ("power law", 0)]:
        offsets, columns, values = sparse_matrix(rows, per_row, 7)
        nnz = columns.size
        a = sp.csr_matrix((values, columns, offsets.astype(cp.int32)), shape=(rows, rows))
        y = a @ x
        # The same check as the Rust side: a few rows against a host computation in f64.
        picks = list(range(0, rows, 4099 * 64))
        off, col, val, xh = offsets.get(), columns.get(), values.get(), x.get()
        for r in picks:
            want = sum(float(val[k]) * float(xh[col[k]]) for k in range(off[r], off[r + 1]))
            assert abs(float(y[r]) - want) <= 1e-4 * max(abs(want), 1.0), (label, r)
        report("cusparse", "spmv", nnz, 8 * nnz + 8 * (rows + 1) + 8 * rows, lambda: a @ x, label)
        del a, offsets, columns, values


# --- N-body accelerations (examples/src/nbody.rs: all pairs, softening 0.05) ----------------------
# The tiled kernel of GPU Gems 3, ch. 31: each block stages 256 bodies at a time in shared memory.
# Compiled as NVRTC compiles by default (IEEE division and square root, contracted multiply-adds)
# and with --use_fast_math, beside accel's `accelerations` and `accelerations_fast`.
NBODY_N, NBODY_EPS = 1 << 15, 0.05
NBODY_SRC = r"""
extern "C" __global__ void accelerations(const float* px, const float* py, const float* pz, const float* m,
                                         float eps2, int n, float* ax, float* ay, float* az) {
    __shared__ float4 tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float xi = i < n ? px[i] : 0.0f, yi = i < n ? py[i] : 0.0f, zi = i < n ? pz[i] : 0.0f;
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (int base = 0; base < n; base += 256) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? make_float4(px[j], py[j], pz[j], m[j]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        int count = min(256, n - base);
        for (int k = 0; k < count; ++k) {
            float4 b = tile[k];
            float dx = b.x - xi, dy = b.y - yi, dz = b.z - zi;
            float d2 = dx * dx + dy * dy + dz * dz + eps2;
            float pull = b.w / (d2 * sqrtf(d2));
            sx += dx * pull;
            sy += dy * pull;
            sz += dz * pull;
        }
        __syncthreads();
    }
    if (i < n) { ax[i] = sx; ay[i] = sy; az[i] = sz; }
}
"""


def nbody():
    n = NBODY_N
    px, py, pz = (cupy_of(rand(n, seed, -1.0, 1.0)) for seed in (21, 22, 23))
    m = cupy_of(rand(n, 24, 0.5, 1.5))
    out = [cp.empty(n, cp.float32) for _ in range(3)]
    for param, options in (("", ()), ("fast_math", ("--use_fast_math",))):
        kernel = cp.RawKernel(NBODY_SRC, "accelerations", options=options)
        args = (px, py, pz, m, cp.float32(NBODY_EPS * NBODY_EPS), cp.int32(n), *out)
        report("cupy", "nbody", n, 28 * n, lambda: kernel(((n + 255) // 256,), (256,), args), param)


# --- Mandelbrot (examples/src/mandelbrot.rs: the view [-2.2, 0.8] x [-1.2, 1.2]) ------------------
MANDEL_SIDE, MANDEL_ITER = 4096, 256
MANDEL_SRC = r"""
extern "C" __global__ void mandelbrot(unsigned rows, unsigned cols, unsigned max_iter, unsigned* out) {
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= cols) return;
    float cr = -2.2f + 3.0f * ((float)j + 0.5f) / (float)cols;
    float ci = 1.2f - 2.4f * ((float)i + 0.5f) / (float)rows;
    float zr = 0.0f, zi = 0.0f;
    unsigned k = 0;
    while (k < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++k;
    }
    out[(size_t)i * cols + j] = k;
}
"""


def mandelbrot():
    side = MANDEL_SIDE
    kernel = cp.RawKernel(MANDEL_SRC, "mandelbrot")
    out = cp.empty(side * side, cp.uint32)
    args = (cp.uint32(side), cp.uint32(side), cp.uint32(MANDEL_ITER), out)
    report("cupy", "mandelbrot", side * side, 4 * side * side,
           lambda: kernel(((side + 255) // 256, side), (256,), args), f"{side}x{side}, {MANDEL_ITER} steps")


# --- Canny edges (examples/src/canny.rs: 5x5 binomial blur, Sobel, thinning, hysteresis) ---------
# One CuPy kernel per stage, a thread per pixel, and hysteresis in rounds until a round changes no
# pixel (the host reads a flag after each, as accel's `awhile` reads its condition), on the image
# of `canny::test_image` (the same noise, disc and ramp square), thresholds 0.5 and 1.5.
CANNY_SIDE = 4096
CANNY_SRC = r"""
__device__ int clampi(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

extern "C" __global__ void smooth(const float* img, int rows, int cols, float* out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= cols) return;
    const float w[5] = {1.0f, 4.0f, 6.0f, 4.0f, 1.0f};
    float r[5];
    for (int a = 0; a < 5; ++a) {
        const float* row = img + (size_t)clampi(i + a - 2, rows - 1) * cols;
        float v0 = row[clampi(j - 2, cols - 1)], v1 = row[clampi(j - 1, cols - 1)], v2 = row[j];
        float v3 = row[clampi(j + 1, cols - 1)], v4 = row[clampi(j + 2, cols - 1)];
        r[a] = v0 + w[1] * v1 + w[2] * v2 + w[3] * v3 + v4;
    }
    out[(size_t)i * cols + j] = (r[0] + 4.0f * r[1] + 6.0f * r[2] + 4.0f * r[3] + r[4]) / 256.0f;
}

extern "C" __global__ void sobel(const float* s, int rows, int cols, float* mag, unsigned* dir) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= cols) return;
    float n[3][3];
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            n[a][b] = s[(size_t)clampi(i + a - 1, rows - 1) * cols + clampi(j + b - 1, cols - 1)];
    float dx = (n[0][2] + 2.0f * n[1][2] + n[2][2]) - (n[0][0] + 2.0f * n[1][0] + n[2][0]);
    float dy = (n[2][0] + 2.0f * n[2][1] + n[2][2]) - (n[0][0] + 2.0f * n[0][1] + n[0][2]);
    size_t k = (size_t)i * cols + j;
    mag[k] = sqrtf(dx * dx + dy * dy);
    float ax = fabsf(dx), ay = fabsf(dy);
    dir[k] = ay <= 0.41421357f * ax ? 0u : (ay >= 2.4142136f * ax ? 2u : ((dx > 0.0f) == (dy > 0.0f) ? 1u : 3u));
}

extern "C" __global__ void thin(const float* mag, const unsigned* dir, int rows, int cols, float low, float high,
                                unsigned* cls) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= cols) return;
    size_t k = (size_t)i * cols + j;
    const int di[4] = {0, 1, 1, 1}, dj[4] = {1, 1, 0, -1};
    unsigned d = dir[k];
    int ai = i + di[d], aj = j + dj[d], bi = i - di[d], bj = j - dj[d];
    float m = mag[k];
    float ahead = (ai >= 0 && aj >= 0 && ai < rows && aj < cols) ? mag[(size_t)ai * cols + aj] : 0.0f;
    float behind = (bi >= 0 && bj >= 0 && bi < rows && bj < cols) ? mag[(size_t)bi * cols + bj] : 0.0f;
    bool peak = m >= ahead && m >= behind;
    cls[k] = peak && m >= high ? 2u : (peak && m >= low ? 1u : 0u);
}

extern "C" __global__ void grow(const unsigned* cls, int rows, int cols, unsigned* next, int* changed) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (j >= cols) return;
    size_t k = (size_t)i * cols + j;
    unsigned c = cls[k];
    if (c == 1) {
        for (int a = -1; a <= 1; ++a)
            for (int b = -1; b <= 1; ++b) {
                int r = i + a, q = j + b;
                if ((a != 0 || b != 0) && r >= 0 && q >= 0 && r < rows && q < cols && cls[(size_t)r * cols + q] == 2) c = 2;
            }
        if (c == 2) *changed = 1;
    }
    next[k] = c;
}

extern "C" __global__ void strong(const unsigned* cls, size_t n, unsigned* edges) {
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) edges[k] = cls[k] == 2 ? 1u : 0u;
}
"""


def canny_image(rows, cols, seed):
    """canny::test_image: noise from SplitMix64 (examples/src/rng.rs), a disc and a ramp square
    (up to the last bit of a few pixels: the constants are rounded in another order)."""
    z = draws(seed, rows * cols)
    noise = 0.1 * ((z >> cp.uint64(40)).astype(cp.float32) / cp.float32(1 << 24))
    i = cp.arange(rows, dtype=cp.float32)[:, None]
    j = cp.arange(cols, dtype=cp.float32)[None, :]
    cy, cx, r = rows / 2.0, cols / 3.0, rows / 4.0
    disc = (i - cy) * (i - cy) + (j - cx) * (j - cx) <= r * r
    left, right = 0.6 * cols, 0.9 * cols
    square = (i >= 0.6 * rows) & (i < 0.9 * rows) & (j >= left) & (j < right)
    ramp = 0.3 + 0.7 * (j - left) / (right - left)
    return (noise.reshape(rows, cols) + cp.where(disc, 1.0, cp.where(square, ramp, 0.0))).astype(cp.float32)


def canny():
    side = CANNY_SIDE
    module = cp.RawModule(code=CANNY_SRC)
    k = {name: module.get_function(name) for name in ("smooth", "sobel", "thin", "grow", "strong")}
    img = canny_image(side, side, 1)
    blurred, mag = cp.empty_like(img), cp.empty_like(img)
    direction, cls, nxt = (cp.empty((side, side), cp.uint32) for _ in range(3))
    edges = cp.empty((side, side), cp.uint32)
    changed = cp.zeros(1, cp.int32)
    grid, block, dims = ((side + 255) // 256, side), (256,), (cp.int32(side), cp.int32(side))

    def run():
        nonlocal cls, nxt
        k["smooth"](grid, block, (img, *dims, blurred))
        k["sobel"](grid, block, (blurred, *dims, mag, direction))
        k["thin"](grid, block, (mag, direction, *dims, cp.float32(0.5), cp.float32(1.5), cls))
        while True:
            changed.fill(0)
            k["grow"](grid, block, (cls, *dims, nxt, changed))
            cls, nxt = nxt, cls
            if int(changed.get()[0]) == 0:
                break
        k["strong"](((side * side + 255) // 256,), block, (cls, cp.uint64(side * side), edges))

    report("cupy", "canny", side * side, 4 * side * side + 4 * side * side, run, f"{side}x{side}")


# --- Fluid flow (examples/src/fluid.rs: Stam's stable fluids) --------------------------------------
# One step on 1024 x 2048 cells with 20 Jacobi sweeps per solve, a thread per cell: the same stages
# as accel's `step` (forces, viscous diffusion, projection, self-advection, projection; sources,
# diffusion, advection of the density), edges clamped, on the state of `Fluid::test_state`. The
# hand kernels fuse what a hand would: the gradient's subtraction from both components, and the
# advection of both components in one kernel.
FLUID_ROWS, FLUID_COLS, FLUID_ITERS = 1024, 2048, 20
FLUID_DT, FLUID_VISCOSITY, FLUID_DIFFUSION = 0.5, 0.05, 0.02
FLUID_SRC = r"""
__device__ int clampi(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }
#define AT(f, i, j) f[(size_t)clampi(i, rows - 1) * cols + clampi(j, cols - 1)]
#define CELL int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y; if (j >= cols) return; \
                  size_t k = (size_t)i * cols + j;

extern "C" __global__ void add_scaled(const float* x, const float* s, float dt, size_t n, float* out) {
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = x[k] + dt * s[k];
}

extern "C" __global__ void jacobi(const float* b, const float* x, int rows, int cols, float a, float c, float* out) {
    CELL
    out[k] = (b[k] + a * (AT(x, i - 1, j) + AT(x, i + 1, j) + AT(x, i, j - 1) + AT(x, i, j + 1))) / c;
}

extern "C" __global__ void divergence(const float* u, const float* v, int rows, int cols, float* div) {
    CELL
    div[k] = -0.5f * ((AT(u, i, j + 1) - AT(u, i, j - 1)) + (AT(v, i + 1, j) - AT(v, i - 1, j)));
}

extern "C" __global__ void subtract_gradient(const float* u, const float* v, const float* p, int rows, int cols,
                                             float* u_out, float* v_out) {
    CELL
    u_out[k] = u[k] - 0.5f * (AT(p, i, j + 1) - AT(p, i, j - 1));
    v_out[k] = v[k] - 0.5f * (AT(p, i + 1, j) - AT(p, i - 1, j));
}

__device__ float sample(const float* q, int rows, int cols, float x, float y) {
    int j0 = (int)floorf(x), i0 = (int)floorf(y);
    int j1 = min(j0 + 1, cols - 1), i1 = min(i0 + 1, rows - 1);
    float s = x - j0, t = y - i0;
    float top = (1.0f - s) * q[(size_t)i0 * cols + j0] + s * q[(size_t)i0 * cols + j1];
    float bottom = (1.0f - s) * q[(size_t)i1 * cols + j0] + s * q[(size_t)i1 * cols + j1];
    return (1.0f - t) * top + t * bottom;
}

__device__ void back_trace(const float* u, const float* v, int rows, int cols, float dt, int i, int j, size_t k,
                           float* x, float* y) {
    *x = fminf(fmaxf((float)j - dt * u[k], 0.0f), (float)(cols - 1));
    *y = fminf(fmaxf((float)i - dt * v[k], 0.0f), (float)(rows - 1));
}

extern "C" __global__ void advect(const float* q, const float* u, const float* v, int rows, int cols, float dt,
                                  float* out) {
    CELL
    float x, y;
    back_trace(u, v, rows, cols, dt, i, j, k, &x, &y);
    out[k] = sample(q, rows, cols, x, y);
}

extern "C" __global__ void advect_velocity(const float* u, const float* v, int rows, int cols, float dt,
                                           float* u_out, float* v_out) {
    CELL
    float x, y;
    back_trace(u, v, rows, cols, dt, i, j, k, &x, &y);
    u_out[k] = sample(u, rows, cols, x, y);
    v_out[k] = sample(v, rows, cols, x, y);
}
"""


def fluid_state(rows, cols, seed):
    """fluid::Fluid::test_state: density, u, v and the sideways force from one SplitMix64 stream
    (examples/src/rng.rs), the source and upward force in a disc near the bottom."""
    n = rows * cols
    unit = (draws(seed, 4 * n) >> cp.uint64(40)).astype(cp.float32) / cp.float32(1 << 24)
    density = cp.float32(0.1) * unit[:n]
    u = cp.float32(-2.0) + cp.float32(4.0) * unit[n:2 * n]
    v = cp.float32(-2.0) + cp.float32(4.0) * unit[2 * n:3 * n]
    sideways = cp.float32(-0.5) + unit[3 * n:]
    i = cp.arange(rows, dtype=cp.float32)[:, None]
    j = cp.arange(cols, dtype=cp.float32)[None, :]
    cy, cx, r = rows * 0.8, cols * 0.5, max(min(rows, cols) * 0.15, 1.0)
    inside = ((i - cy) * (i - cy) + (j - cx) * (j - cx) <= r * r).ravel()
    zero = cp.zeros(n, cp.float32)
    added = cp.where(inside, cp.float32(1.0), zero)
    force_u = cp.where(inside, sideways, zero)
    force_v = cp.where(inside, cp.float32(-3.0), zero)
    return [cp.ascontiguousarray(f, dtype=cp.float32) for f in (density, u, v, added, force_u, force_v)]


def fluid():
    rows, cols, iters = FLUID_ROWS, FLUID_COLS, FLUID_ITERS
    n = rows * cols
    module = cp.RawModule(code=FLUID_SRC)
    k = {name: module.get_function(name)
         for name in ("add_scaled", "jacobi", "divergence", "subtract_gradient", "advect", "advect_velocity")}
    density, u, v, added, force_u, force_v = fluid_state(rows, cols, 1)
    u1, v1, u2, v2, d1, d2, div, p = (cp.empty(n, cp.float32) for _ in range(8))
    ping, pong = cp.empty(n, cp.float32), cp.empty(n, cp.float32)
    grid, block, dims = ((cols + 255) // 256, rows), (256,), (cp.int32(rows), cp.int32(cols))
    flat = ((n + 255) // 256,)
    dt = cp.float32(FLUID_DT)

    def relax(b, x, a, c, out):
        """`iters` Jacobi sweeps from `x` into `out` (which may be `x`)."""
        src = x
        for sweep in range(iters):
            dst = out if sweep == iters - 1 else (ping if src is not ping else pong)
            k["jacobi"](grid, block, (b, src, *dims, cp.float32(a), cp.float32(c), dst))
            src = dst

    def project(u_in, v_in, u_out, v_out):
        k["divergence"](grid, block, (u_in, v_in, *dims, div))
        p.fill(0)
        relax(div, p, 1.0, 4.0, p)
        k["subtract_gradient"](grid, block, (u_in, v_in, p, *dims, u_out, v_out))

    def run():
        k["add_scaled"](flat, block, (u, force_u, dt, cp.uint64(n), u1))
        k["add_scaled"](flat, block, (v, force_v, dt, cp.uint64(n), v1))
        a = FLUID_DT * FLUID_VISCOSITY
        relax(u1, u1, a, 1.0 + 4.0 * a, u2)
        relax(v1, v1, a, 1.0 + 4.0 * a, v2)
        project(u2, v2, u1, v1)
        k["advect_velocity"](grid, block, (u1, v1, *dims, dt, u2, v2))
        project(u2, v2, u1, v1)
        k["add_scaled"](flat, block, (density, added, dt, cp.uint64(n), d1))
        b = FLUID_DT * FLUID_DIFFUSION
        relax(d1, d1, b, 1.0 + 4.0 * b, d2)
        k["advect"](grid, block, (d2, u1, v1, *dims, dt, d1))
        return d1, u1, v1

    d, uo, vo = run()
    # A check against accel's bench, which prints the same sums of its own step (stderr).
    print(f"fluid (cupy): sums of density, u, v {float(d.sum()):.6e} {float(uo.sum()):.6e} {float(vo.sum()):.6e}",
          file=sys.stderr)
    report("cupy", "fluid", n, 36 * n, run, f"{rows}x{cols}, {iters} sweeps")


# --- segmented sums ------------------------------------------------------------------------------
N = 1 << 28


def segment_lengths(n, length):
    """`length` each, or for 0 the mixed pattern 2^((5k) mod 17), the last cut to fit."""
    if length:
        return [length] * (n // length)
    out, total, k = [], 0, 0
    while total < n:
        l = min(1 << ((5 * k) % 17), n - total)
        out.append(l)
        total += l
        k += 1
    return out


def segments(x):
    for length in [4, 32, 1024, 65536, 0]:
        lens = torch.tensor(segment_lengths(N, length), device="cuda", dtype=torch.int64)
        param = str(length) if length else "mixed"
        report("torch", "fold_seg", N, 4 * N + 4 * lens.numel(),
               lambda: torch.segment_reduce(x, "sum", lengths=lens), param)
        del lens


if os.environ.get("BASELINES_ONLY") == "sparse":
    sparse()
    sys.exit(0)
if os.environ.get("BASELINES_ONLY") == "segments":
    segments(rand(N, 8))
    sys.exit(0)
if os.environ.get("BASELINES_ONLY") == "icfp":
    nbody()
    mandelbrot()
    canny()
    fluid()
    sys.exit(0)

# --- copy and saxpy ------------------------------------------------------------------------------
saxpy_kernel = cp.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "saxpy")
saxpy_compiled = torch.compile(lambda a, x, y: a * x + y)
for n in SIZES:
    x, y, out = rand(n, 1), rand(n, 2), torch.empty(n, device="cuda")
    report("torch", "copy", n, 8 * n, lambda: out.copy_(x))
    cx, cy, cz = cupy_of(x), cupy_of(y), cupy_of(out)
    report("cupy", "saxpy", n, 12 * n, lambda: saxpy_kernel(cp.float32(2.5), cx, cy, cz))
    report("torch", "saxpy", n, 12 * n, lambda: torch.add(y, x, alpha=2.5, out=out))
    report("torch.compile", "saxpy", n, 12 * n, lambda: saxpy_compiled(2.5, x, y))
    del x, y, out, cx, cy, cz

# --- Black-Scholes (the polynomial CND of examples/src/black_scholes.rs) -------------------------
R, V = 0.02, 0.30


def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * d.abs())
    p = k * (0.31938153 + k * (-0.35656378 + k * (1.7814779 + k * (-1.821256 + k * 1.3302744))))
    w = 0.3989423 * torch.exp(-0.5 * d * d) * p
    return torch.where(d > 0, 1.0 - w, w)


def black_scholes(s, k, t):
    v_sqrt_t = V * torch.sqrt(t)
    d1 = (torch.log(s / k) + (R + 0.5 * V * V) * t) / v_sqrt_t
    d2 = d1 - v_sqrt_t
    c1, c2 = cnd(d1), cnd(d2)
    k_exp_rt = k * torch.exp(-R * t)
    return s * c1 - k_exp_rt * c2, k_exp_rt * (1.0 - c2) - s * (1.0 - c1)


bs_kernel = cp.ElementwiseKernel(
    "float32 s, float32 k, float32 t", "float32 call, float32 put",
    """
    const float r = 0.02f, v = 0.30f;
    float v_sqrt_t = v * sqrtf(t);
    float d1 = (logf(s / k) + (r + 0.5f * v * v) * t) / v_sqrt_t;
    float d2 = d1 - v_sqrt_t;
    float k1 = 1.0f / (1.0f + 0.2316419f * fabsf(d1));
    float p1 = k1 * (0.31938153f + k1 * (-0.35656378f + k1 * (1.7814779f + k1 * (-1.821256f + k1 * 1.3302744f))));
    float w1 = 0.3989423f * expf(-0.5f * d1 * d1) * p1;
    float c1 = d1 > 0.0f ? 1.0f - w1 : w1;
    float k2 = 1.0f / (1.0f + 0.2316419f * fabsf(d2));
    float p2 = k2 * (0.31938153f + k2 * (-0.35656378f + k2 * (1.7814779f + k2 * (-1.821256f + k2 * 1.3302744f))));
    float w2 = 0.3989423f * expf(-0.5f * d2 * d2) * p2;
    float c2 = d2 > 0.0f ? 1.0f - w2 : w2;
    float k_exp_rt = k * expf(-r * t);
    call = s * c1 - k_exp_rt * c2;
    put = k_exp_rt * (1.0f - c2) - s * (1.0f - c1);
    """, "black_scholes")
s, k, t = rand(BS_N, 3, 5.0, 30.0), rand(BS_N, 4, 1.0, 100.0), rand(BS_N, 5, 0.25, 10.0)
cs, ck, ct = cupy_of(s), cupy_of(k), cupy_of(t)
call, put = cp.empty(BS_N, cp.float32), cp.empty(BS_N, cp.float32)
report("cupy", "black_scholes", BS_N, 20 * BS_N, lambda: bs_kernel(cs, ck, ct, call, put))
report("torch", "black_scholes", BS_N, 20 * BS_N, lambda: black_scholes(s, k, t))
bs_compiled = torch.compile(black_scholes)
report("torch.compile", "black_scholes", BS_N, 20 * BS_N, lambda: bs_compiled(s, k, t))
del s, k, t, cs, ck, ct, call, put

# --- reductions, scans, dot products -------------------------------------------------------------
for n in SIZES:
    x, y = rand(n, 6), rand(n, 7)
    cx, cy = cupy_of(x), cupy_of(y)
    report("cupy", "fold_all", n, 4 * n, lambda: cx.sum())
    report("torch", "fold_all", n, 4 * n, lambda: x.sum())
    report("cupy", "scanl1", n, 8 * n, lambda: cp.cumsum(cx))
    report("torch", "scanl1", n, 8 * n, lambda: torch.cumsum(x, 0))
    report("cupy", "dotp", n, 8 * n, lambda: cp.dot(cx, cy))
    report("torch", "dotp", n, 8 * n, lambda: torch.dot(x, y))
    del x, y, cx, cy
x, y = rand(BS_N, 6), rand(BS_N, 7)
cx, cy = cupy_of(x), cupy_of(y)
report("cupy", "dotp", BS_N, 8 * BS_N, lambda: cp.dot(cx, cy))
report("torch", "dotp", BS_N, 8 * BS_N, lambda: torch.dot(x, y))
del x, y, cx, cy
if os.environ.get("BASELINES_ONLY") == "stream":
    sys.exit(0)

# --- segmented sums (and the histogram's samples below) -------------------------------------------
x = rand(N, 8)
segments(x)

# --- histogram of 256 bins -----------------------------------------------------------------------
cx = cupy_of(x)
report("cupy", "histogram", N, 4 * N, lambda: cp.histogram(cx, bins=256, range=(0.0, 1.0)), "256")
keys = (x * 256).to(torch.int32).clamp_(max=255)
ckeys = cupy_of(keys)
report("cupy.bincount", "histogram", N, 4 * N, lambda: cp.bincount(ckeys, minlength=256), "256")
report("torch", "histogram", N, 4 * N, lambda: torch.histc(x, bins=256, min=0.0, max=1.0), "256")
del x, cx, keys, ckeys

# --- 3x3 stencil (examples/src/blur.rs: weights 1 2 1 / 2 4 2 / 1 2 1, over 16, clamped) ---------
S = 8192
img = rand(S * S, 9).reshape(1, 1, S, S)
weights = torch.tensor([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]], device="cuda").reshape(1, 1, 3, 3) / 16


def blur(im):
    return torch.nn.functional.conv2d(torch.nn.functional.pad(im, (1, 1, 1, 1), mode="replicate"), weights)


report("torch", "stencil3x3", S * S, 8 * S * S, lambda: blur(img), "8192x8192")
blur_compiled = torch.compile(blur)
report("torch.compile", "stencil3x3", S * S, 8 * S * S, lambda: blur_compiled(img), "8192x8192")
import cupyx.scipy.ndimage as ndi  # noqa: E402

cimg, cw = cupy_of(img[0, 0]), cupy_of(weights[0, 0].contiguous())
report("cupy", "stencil3x3", S * S, 8 * S * S, lambda: ndi.correlate(cimg, cw, mode="nearest"), "8192x8192")

sparse()
nbody()
mandelbrot()
canny()
fluid()
