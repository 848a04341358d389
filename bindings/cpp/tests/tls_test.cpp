// The trust options (ca_file, ca_pem, tls_verifier) against a gw-mock that speaks HTTPS with a
// certificate from a CA made for this run: scripts/test-cpp.sh starts it with --tls-ca-out and
// passes its address and the CA's PEM file as GW_TEST_TLS_URL and GW_TEST_TLS_CA.
#include <gtest/gtest.h>

#include <gw/gw.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support.hpp"

namespace {

std::string env(const char* name)
{
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
        ADD_FAILURE() << name << " is not set (scripts/test-cpp.sh starts the TLS mock)";
        return {};
    }
    return value;
}

gw::ClientOptions tls_options()
{
    gw::ClientOptions o;
    o.base_url = env("GW_TEST_TLS_URL");
    o.api_key = support::kKey;
    o.max_retries = 0;
    return o;
}

}  // namespace

TEST(Tls, ACaGivenAsAFileOrAsPemTextIsTrusted)
{
    const std::string ca_file = env("GW_TEST_TLS_CA");
    ASSERT_EQ(env("GW_TEST_TLS_URL").rfind("https://", 0), 0u);
    std::ifstream in(ca_file);
    std::stringstream pem;
    pem << in.rdbuf();
    ASSERT_NE(pem.str().find("BEGIN CERTIFICATE"), std::string::npos);

    gw::ClientOptions by_file = tls_options();
    by_file.ca_file = ca_file;
    gw::ClientOptions by_text = tls_options();
    by_text.ca_pem = pem.str();
    for (const auto& o : {by_file, by_text}) {
        const gw::Client c(o);
        EXPECT_NE(c.chat(support::chat_request("over tls")).find("Echo: over tls"), std::string::npos);
    }
}

TEST(Tls, AnUnknownCaIsANetworkErrorThatSaysSo)
{
    const gw::Client c(tls_options());
    try {
        (void)c.chat(support::chat_request("over tls"));
        FAIL() << "a certificate from an unknown CA must be refused";
    } catch (const gw::Error& e) {
        EXPECT_EQ(e.status(), GW_NETWORK);
        EXPECT_NE(std::string(e.what()).find("not signed by a trusted CA"), std::string::npos) << e.what();
    }
}

TEST(Tls, BadTrustOptionsAreRefusedAtCreation)
{
    gw::ClientOptions missing = tls_options();
    missing.ca_file = "/nonexistent/gw-ca.pem";
    gw::ClientOptions not_pem = tls_options();
    not_pem.ca_pem = "not a certificate";
    gw::ClientOptions verifier = tls_options();
    verifier.tls_verifier = "sometimes";
    for (const auto& o : {missing, not_pem, verifier}) {
        const auto r = gw::Client::create(o);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().status(), GW_INVALID_ARGUMENT) << r.error().message();
    }
}
