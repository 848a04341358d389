// gw::embedding_decode: a base64 embedding ("encoding_format": "base64") as floats.
#ifndef GW_CPP_EMBEDDING_HPP
#define GW_CPP_EMBEDDING_HPP

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "call.hpp"
#include "config.hpp"
#include "error.hpp"

namespace gw {

// The little-endian float32s a base64 embedding holds. Invalid base64, or a byte count that
// is not a multiple of 4, is GW_INVALID_ARGUMENT.
inline Result<std::vector<float>> try_embedding_decode(std::string_view base64)
{
    constexpr const char* what = "gw::embedding_decode";
    std::string in;
    if (auto e = detail::c_arg(what, "base64", base64, in)) return *e;
    float* floats = nullptr;
    std::size_t n = 0;
    char* err = nullptr;
    const int st = gw_embedding_decode_err(in.c_str(), &floats, &n, &err);
    detail::CString owned(err);
    if (st != GW_OK) return Error(st, owned.str(), {}, what);
    std::vector<float> out(floats, floats + n);
    gw_free(floats);
    return out;
}

#if GW_CPP_EXCEPTIONS
inline std::vector<float> embedding_decode(std::string_view base64)
{
    return try_embedding_decode(base64).value();
}
#endif

}  // namespace gw

#endif  // GW_CPP_EMBEDDING_HPP
