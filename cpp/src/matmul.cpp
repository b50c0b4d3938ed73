#include "mha/matmul.hpp"

#include <algorithm>

namespace mha {

void batched_matmul(const float* a, const float* b, float* c, std::size_t batch, std::size_t M,
                    std::size_t K, std::size_t N, const float* bias) {
    for (std::size_t n = 0; n < batch; ++n) {
        const float* a_n = a + n * M * K;
        const float* b_n = b + n * K * N;
        float* c_n = c + n * M * N;
        for (std::size_t i = 0; i < M; ++i) {
            float* c_row = c_n + i * N;
            if (bias) std::copy(bias, bias + N, c_row);
            else std::fill(c_row, c_row + N, 0.0f);
            // i-k-j order walks b and c row by row, so the inner loop is contiguous.
            for (std::size_t k = 0; k < K; ++k) {
                const float a_ik = a_n[i * K + k];
                const float* b_row = b_n + k * N;
                for (std::size_t j = 0; j < N; ++j) c_row[j] += a_ik * b_row[j];
            }
        }
    }
}

}  // namespace mha
