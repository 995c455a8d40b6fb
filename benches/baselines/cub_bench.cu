// CUB baselines for the accel GPU benchmarks (benches/benches/gpu.rs): reduce, inclusive scan,
// segmented reduce, histogram and radix sort, timed the same way: CUDA events around each call, 3 warm-up
// calls, the median of RUNS timed calls, random inputs generated on the host.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o cub_bench cub_bench.cu && ./cub_bench [runs] > cub.jsonl
//
// One JSON object per line, the format every benchmark of this directory prints (see compare.py).
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                                    \
        }                                                                                    \
    } while (0)

static int RUNS = 20;

// SplitMix64, as in the Rust benchmarks: uniform floats in [0, 1).
static std::vector<float> random_floats(size_t n, uint64_t seed) {
    std::vector<float> v(n);
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        s += 0x9e3779b97f4a7c15ull;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        v[i] = float((z ^ (z >> 31)) >> 40) / float(1u << 24);
    }
    return v;
}

template <typename T>
static T* upload(const std::vector<T>& h) {
    T* d = nullptr;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T) + 16));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

// Median and minimum in microseconds of `call`, each call between two events.
static std::pair<double, double> time_us(const std::function<void()>& call) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) call();
    CHECK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int i = 0; i < RUNS; ++i) {
        CHECK(cudaEventRecord(a));
        call();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e3);
    }
    CHECK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return {t[t.size() / 2], t[0]};
}

static void report(const char* bench, size_t n, const std::string& param, double bytes,
                   std::pair<double, double> t) {
    std::printf(
        "{\"impl\": \"cub\", \"bench\": \"%s\", \"n\": %zu, \"param\": \"%s\", \"median_us\": %.3f, "
        "\"min_us\": %.3f, \"bytes\": %.0f}\n",
        bench, n, param.c_str(), t.first, t.second, bytes);
    std::fflush(stdout);
}

// Temporary storage, grown as needed and kept.
static void* temp = nullptr;
static size_t temp_size = 0;
static void ensure_temp(size_t bytes) {
    if (bytes <= temp_size) return;
    if (temp) CHECK(cudaFree(temp));
    CHECK(cudaMalloc(&temp, bytes));
    temp_size = bytes;
}

// Segment lengths of the fold_seg benchmark over `n` elements: `len` each, or for len == 0 the
// mixed pattern 2^((5k) mod 17) (1 to 65536), the last segment cut to fit.
static std::vector<int> segment_offsets(size_t n, size_t len) {
    std::vector<int> off{0};
    size_t total = 0;
    for (size_t k = 0; total < n; ++k) {
        size_t l = len ? len : (size_t(1) << ((5 * k) % 17));
        l = std::min(l, n - total);
        total += l;
        off.push_back(int(total));
    }
    return off;
}

int main(int argc, char** argv) {
    if (argc > 1) RUNS = std::atoi(argv[1]);
    const size_t max_n = size_t(1) << 28;
    std::vector<float> h = random_floats(max_n, 42);
    float* d_in = upload(h);
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_out, max_n * sizeof(float)));

    for (int lg = 16; lg <= 28; lg += 4) {
        size_t n = size_t(1) << lg;
        size_t bytes = 0;
        CHECK(cub::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, int(n)));
        ensure_temp(bytes);
        report("fold_all", n, "", 4.0 * n, time_us([&] {
                   size_t b = temp_size;
                   CHECK(cub::DeviceReduce::Sum(temp, b, d_in, d_out, int(n)));
               }));
        CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, d_in, d_out, int(n)));
        ensure_temp(bytes);
        report("scanl1", n, "", 8.0 * n, time_us([&] {
                   size_t b = temp_size;
                   CHECK(cub::DeviceScan::InclusiveSum(temp, b, d_in, d_out, int(n)));
               }));
    }

    for (size_t len : {size_t(4), size_t(32), size_t(1024), size_t(65536), size_t(0)}) {
        std::vector<int> off = segment_offsets(max_n, len);
        int segments = int(off.size() - 1);
        int* d_off = upload(off);
        size_t bytes = 0;
        CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, d_in, d_out, segments, d_off, d_off + 1));
        ensure_temp(bytes);
        std::string param = len ? std::to_string(len) : "mixed";
        report("fold_seg", max_n, param, 4.0 * max_n + 4.0 * segments, time_us([&] {
                   size_t b = temp_size;
                   CHECK(cub::DeviceSegmentedReduce::Sum(temp, b, d_in, d_out, segments, d_off, d_off + 1));
               }));
        CHECK(cudaFree(d_off));
    }

    {
        int* d_hist = nullptr;
        CHECK(cudaMalloc(&d_hist, 256 * sizeof(int)));
        size_t bytes = 0;
        CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes, d_in, d_hist, 257, 0.0f, 1.0f, int(max_n)));
        ensure_temp(bytes);
        report("histogram", max_n, "256", 4.0 * max_n, time_us([&] {
                   size_t b = temp_size;
                   CHECK(cub::DeviceHistogram::HistogramEven(temp, b, d_in, d_hist, 257, 0.0f, 1.0f, int(max_n)));
               }));
        // Same answer as a host count, so that the timing is of a working call.
        std::vector<int> got(256), want(256, 0);
        CHECK(cudaMemcpy(got.data(), d_hist, 256 * sizeof(int), cudaMemcpyDeviceToHost));
        for (float x : h) want[std::min(int(x * 256.0f), 255)]++;
        long long diff = 0;
        for (int i = 0; i < 256; ++i) diff += std::llabs((long long)got[i] - want[i]);
        if (diff > 256) std::fprintf(stderr, "CUB histogram differs from the host count by %lld\n", diff);
        CHECK(cudaFree(d_hist));
    }

    {
        // Radix sort of 2^24 random 32-bit keys (DeviceRadixSort::SortKeys, all 32 bits), the
        // keys drawn as the Rust benchmark draws them: the high half of a SplitMix64 output.
        const size_t n = size_t(1) << 24;
        std::vector<uint32_t> keys(n);
        uint64_t s = 13;
        for (size_t i = 0; i < n; ++i) {
            s += 0x9e3779b97f4a7c15ull;
            uint64_t z = s;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            keys[i] = uint32_t((z ^ (z >> 31)) >> 32);
        }
        uint32_t* d_keys = upload(keys);
        uint32_t* d_sorted = nullptr;
        CHECK(cudaMalloc(&d_sorted, n * sizeof(uint32_t)));
        size_t bytes = 0;
        CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, d_keys, d_sorted, int(n)));
        ensure_temp(bytes);
        report("radix_sort", n, "random u32", 8.0 * n, time_us([&] {
                   size_t b = temp_size;
                   CHECK(cub::DeviceRadixSort::SortKeys(temp, b, d_keys, d_sorted, int(n)));
               }));
        std::vector<uint32_t> got(n);
        CHECK(cudaMemcpy(got.data(), d_sorted, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        std::sort(keys.begin(), keys.end());
        if (got != keys) {
            std::fprintf(stderr, "CUB radix sort differs from std::sort\n");
            return 1;
        }
        CHECK(cudaFree(d_keys));
        CHECK(cudaFree(d_sorted));
    }
    return 0;
}
