// A chat answer streamed token by token with the gw C++ binding, then the token usage of the
// assembled completion.
//
//   GW_BASE_URL=https://... GW_API_KEY=sk-... ./chat_stream
//
// Build: see CMakeLists.txt next to this file.
#include <gw/gw.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

int main()
{
    const char* env_model = std::getenv("GW_CHAT_MODEL");
    const std::string model = env_model != nullptr ? env_model : "chat-model";
    const std::string request = R"({"model": )" + gw::json_text::quote(model) + R"(,
        "messages": [{"role": "user", "content": "Say hello to C++ in five words"}],
        "stream_options": {"include_usage": true}})";

    try {
        // Empty options: the base URL and key come from GW_BASE_URL and GW_API_KEY.
        const gw::Client client{gw::ClientOptions{}};

        gw::Stream stream = client.chat_stream(request);
        for (const gw::Event& ev : stream) std::cout << ev.text() << std::flush;
        std::cout << '\n';

        // The chat.completion assembled from the chunks.
        const std::string completion = stream.finish();
        const auto usage = gw::json_text::find(completion, {"usage"});
        std::cout << "usage: " << (usage ? std::string(*usage) : "(the gateway sent none)") << '\n';
        std::cout << "request id: " << stream.meta().request_id().value_or("(none)") << '\n';
    } catch (const gw::Error& e) {
        // e.g. "gw::Client::chat_stream: GW_UNAUTHORIZED (401): Incorrect API key provided"
        std::cerr << e.what() << '\n';
        return 1;
    }
    return 0;
}
