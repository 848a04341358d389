// gw C++ binding: the C header and the one build switch every other header reads.
#ifndef GW_CPP_CONFIG_HPP
#define GW_CPP_CONFIG_HPP

#include <gw.h>

#if __cplusplus < 201703L && (!defined(_MSVC_LANG) || _MSVC_LANG < 201703L)
#error "gw/gw.hpp needs C++17 or later"
#endif

// GW_CPP_EXCEPTIONS is 1 when the code is built with exceptions. The throwing methods exist
// only then; the try_* methods (returning gw::Result) exist always, so code built with
// -fno-exceptions uses those. Define it to 0 yourself to hide the throwing API.
#ifndef GW_CPP_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define GW_CPP_EXCEPTIONS 1
#else
#define GW_CPP_EXCEPTIONS 0
#endif
#endif

#endif  // GW_CPP_CONFIG_HPP
