// test-dist: the C++ binding from an unpacked SDK archive (find_package(gw), gw::cpp or
// gw::cpp_static): a streamed chat against gw-mock at GW_BASE_URL.
#include <gw/gw.hpp>
#include <iostream>
#include <string>

int main()
{
    try {
        gw::Client client{gw::ClientOptions{}};
        gw::Stream stream = client.chat_stream(
            R"({"model": "m", "messages": [{"role": "user", "content": "from C++"}]})");
        std::string text;
        for (const gw::Event& ev : stream) text += ev.text();
        stream.finish();
        if (text != "Echo: from C++") {
            std::cerr << "consumer-cpp: streamed text '" << text << "'\n";
            return 1;
        }
        std::cout << "consumer-cpp: gw " << gw::version() << ", stream ok\n";
    } catch (const gw::Error& e) {
        std::cerr << "consumer-cpp: " << e.what() << "\n";
        return 1;
    }
}
