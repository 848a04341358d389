// gw C++ binding: a header-only, C++17, standard-library-only layer over gw.h.
//
//   #include <gw/gw.hpp>
//
//   gw::ClientOptions options;                  // base URL and key from the environment
//   gw::Client client(options);                 // throws gw::Error on bad options
//   for (const gw::Event& ev : client.chat_stream(R"({"model":"m","messages":[...]})"))
//       std::cout << ev.text() << std::flush;
//
// Every method takes JSON text and returns JSON text (std::string); failures throw
// gw::Error, and each method has a try_ form returning gw::Result for code built without
// exceptions. Link libgw (CMake: find_package(gw CONFIG) and gw::gw or gw::gw_static).
// Documentation: bindings/cpp/README.md.
#ifndef GW_CPP_GW_HPP
#define GW_CPP_GW_HPP

#include "config.hpp"
#include "json.hpp"
#include "error.hpp"
#include "cancel.hpp"
#include "options.hpp"
#include "call.hpp"
#include "stream.hpp"
#include "client.hpp"
#include "embedding.hpp"
#include "logging.hpp"

#endif  // GW_CPP_GW_HPP
