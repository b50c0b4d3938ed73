#include "mha/error.hpp"

namespace mha {

const char* code_name(ErrorCode code) {
    switch (code) {
        case ErrorCode::bad_json: return "bad_json";
        case ErrorCode::unknown_key: return "unknown_key";
        case ErrorCode::bad_type: return "bad_type";
        case ErrorCode::missing: return "missing";
        case ErrorCode::bad_size: return "bad_size";
        case ErrorCode::not_divisible: return "not_divisible";
        case ErrorCode::heads_not_divisible: return "heads_not_divisible";
        case ErrorCode::bad_key_lengths: return "bad_key_lengths";
        case ErrorCode::bad_tensor_length: return "bad_tensor_length";
        case ErrorCode::non_finite: return "non_finite";
        case ErrorCode::bad_value: return "bad_value";
        case ErrorCode::memory_cap: return "memory_cap";
        case ErrorCode::unknown_step: return "unknown_step";
    }
    return "unknown";
}

}  // namespace mha
