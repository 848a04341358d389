// The conformance corpus run through gw's C++ binding (gw::Client, try_ forms, gw::Stream,
// gw::CancelToken) against gw-mock (GW_TEST_BASE_URL); nlohmann::json reads the cases.
// Usage: runner-cpp <conformance dir> <tsv out>. Prints
// "conformance cpp: P passed, F failed, S skipped"; exits 1 when a case failed.
#include <gw/gw.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::json;
using std::chrono::milliseconds;

namespace {

struct Seen {
    int status = 0;
    json out;
    std::vector<gw::Event> events;
    long long attempts = -1;
    bool request_id = false;
    long long cancel_to_return_ms = -1;
    long long sent = 0;
    json last_body;
    json last_headers;
};

json read_json(const fs::path& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
}

json parse_or_text(const std::string& text)
{
    json v = json::parse(text, nullptr, false);
    return v.is_discarded() ? json(text) : v;
}

const json* value_at(const json& doc, const std::string& path)
{
    const json* node = &doc;
    if (path.empty()) return node;
    std::stringstream steps(path);
    std::string step;
    while (std::getline(steps, step, '.')) {
        if (node->is_object()) {
            auto it = node->find(step);
            if (it == node->end()) return nullptr;
            node = &*it;
        } else if (node->is_array()) {
            char* end = nullptr;
            unsigned long i = std::strtoul(step.c_str(), &end, 10);
            if (*end != '\0' || i >= node->size()) return nullptr;
            node = &(*node)[i];
        } else {
            return nullptr;
        }
    }
    return node;
}

// JSON equality with numbers by value (1 == 1.0).
bool same(const json& a, const json& b)
{
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    if (a.is_array() && b.is_array()) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); i++)
            if (!same(a[i], b[i])) return false;
        return true;
    }
    if (a.is_object() && b.is_object()) {
        if (a.size() != b.size()) return false;
        for (auto it = a.begin(); it != a.end(); ++it) {
            auto other = b.find(it.key());
            if (other == b.end() || !same(it.value(), *other)) return false;
        }
        return true;
    }
    return a == b;
}

std::string show(const json* v) { return v ? v->dump().substr(0, 300) : "nothing"; }

void check_pairs(std::vector<std::string>& problems, const char* what, const json& doc,
                 const json& pairs)
{
    for (const json& pair : pairs) {
        const std::string path = pair.at(0).get<std::string>();
        const json& want = pair.at(1);
        const json* got = value_at(doc, path);
        bool ok = (want.is_null() && (!got || got->is_null())) || (got && same(*got, want));
        if (!ok) problems.push_back(std::string(what) + " " + path + ": got " + show(got) +
                                    ", expected " + want.dump());
    }
}

void check_events(std::vector<std::string>& problems, const json& want,
                  const std::vector<gw::Event>& events)
{
    const std::size_t n = events.size();
    if (want.contains("count") && n != want["count"].get<std::size_t>())
        problems.push_back("events: " + std::to_string(n) + ", expected " + want["count"].dump());
    if (want.contains("min_count") && n < want["min_count"].get<std::size_t>())
        problems.push_back("events: " + std::to_string(n) + ", expected at least " +
                           want["min_count"].dump());
    if (want.contains("text")) {
        std::string text;
        for (const gw::Event& ev : events)
            if (ev.choice_index == 0) text += ev.text();
        if (text != want["text"].get<std::string>())
            problems.push_back("event text \"" + text + "\", expected " + want["text"].dump());
    }
    if (want.contains("names")) {
        std::vector<std::string> names;
        for (const gw::Event& ev : events) names.push_back(ev.name);
        if (json(names) != want["names"]) problems.push_back("event names " + json(names).dump());
    }
    if (want.contains("first_name") && (n == 0 || events.front().name != want["first_name"]))
        problems.push_back("first_name: " + (n ? events.front().name : "none"));
    if (want.contains("last_name") && (n == 0 || events.back().name != want["last_name"]))
        problems.push_back("last_name: " + (n ? events.back().name : "none"));
}

std::string check(const json& c, const Seen& seen)
{
    std::vector<std::string> problems;
    const json e = c.value("expect", json::object());
    if (e.contains("status") && e["status"].get<int>() != seen.status)
        problems.push_back("status " + std::to_string(seen.status) + " (" +
                           gw_status_str(seen.status) + "), expected " + e["status"].dump() +
                           "; out: " + show(&seen.out));
    if (e.contains("error")) {
        const json* err = value_at(seen.out, "error");
        for (auto it = e["error"].begin(); it != e["error"].end(); ++it) {
            if (it.key() == "message_contains" || it.key() == "message_lacks") {
                const json* m = err ? value_at(*err, "message") : nullptr;
                std::string message = m && m->is_string() ? m->get<std::string>() : "";
                bool holds = message.find(it.value().get<std::string>()) != std::string::npos;
                if (holds != (it.key() == "message_contains"))
                    problems.push_back("error.message " + it.key() + ": " + message);
                continue;
            }
            const json* got = err ? value_at(*err, it.key()) : nullptr;
            if (!got || !same(*got, it.value()))
                problems.push_back("error." + it.key() + ": got " + show(got) + ", expected " +
                                   it.value().dump());
        }
    }
    if (e.contains("answer")) check_pairs(problems, "answer", seen.out, e["answer"]);
    for (const json& path : e.value("answer_lacks", json::array())) {
        const json* got = value_at(seen.out, path.get<std::string>());
        if (got && !got->is_null()) problems.push_back("answer " + path.dump() + ": expected absent");
    }
    if (e.contains("events")) check_events(problems, e["events"], seen.events);
    const json meta = e.value("meta", json::object());
    if (meta.contains("attempts") && seen.attempts != meta["attempts"].get<long long>())
        problems.push_back("meta.attempts " + std::to_string(seen.attempts) + ", expected " +
                           meta["attempts"].dump());
    if (meta.value("request_id", false) && !seen.request_id) problems.push_back("meta.request_id: absent");
    if (e.contains("sent") && seen.sent != e["sent"].get<long long>())
        problems.push_back("sent " + std::to_string(seen.sent) + " requests, expected " + e["sent"].dump());
    if (e.contains("sent_body")) check_pairs(problems, "sent_body", seen.last_body, e["sent_body"]);
    if (e.contains("sent_header")) {
        for (auto it = e["sent_header"].begin(); it != e["sent_header"].end(); ++it) {
            std::optional<std::string> got;
            for (const json& h : seen.last_headers) {
                std::string name = h.at(0).get<std::string>();
                std::string key = it.key();
                std::transform(key.begin(), key.end(), key.begin(), ::tolower);
                if (name == key) got = h.at(1).get<std::string>();
            }
            bool ok = it.value().is_null() ? !got : (got && *got == it.value().get<std::string>());
            if (!ok) problems.push_back("sent header " + it.key() + ": got " + got.value_or("none"));
        }
    }
    if (c.contains("cancel")) {
        long long bound = c["cancel"]["bound_ms"].get<long long>();
        if (seen.cancel_to_return_ms < 0 || seen.cancel_to_return_ms > bound)
            problems.push_back("cancel to return: " + std::to_string(seen.cancel_to_return_ms) +
                               " ms, bound " + std::to_string(bound) + " ms");
    }
    std::string joined;
    for (const std::string& p : problems) joined += (joined.empty() ? "" : "; ") + p;
    return joined;
}

gw::VideoFamily family_of(const std::string& name)
{
    if (name == "character") return gw::VideoFamily::character;
    if (name == "vendor_k") return gw::VideoFamily::vendor_k;
    if (name == "vendor_r") return gw::VideoFamily::vendor_r;
    return gw::VideoFamily::unified;
}

// One call of `verb`, the way a C++ user makes it; nullopt: the runner knows no such verb.
std::optional<gw::Result<std::string>> call(const gw::Client& client, const std::string& verb,
                                            const std::optional<std::string>& body,
                                            const json& args, std::vector<gw::Event>& events,
                                            const gw::CallOptions& o)
{
    const std::string b = body.value_or("");
    const std::string id = args.value("id", "");
    auto keep = [&events](const gw::Event& ev) { events.push_back(ev); };
    if (verb == "chat") return client.try_chat(b, o);
    if (verb == "chatStream") return client.try_chat_stream(b, keep, o);
    if (verb == "responses") return client.try_responses(b, o);
    if (verb == "responsesStream") return client.try_responses_stream(b, keep, o);
    if (verb == "embeddings") return client.try_embeddings(b, o);
    if (verb == "imageGenerate") return client.try_image_generate(b, o);
    if (verb == "imageEdit") return client.try_image_edit(b, o);
    if (verb == "videoCreate") return client.try_video_create(b, o);
    if (verb == "videoGenerate") return client.try_video_generate(b, o);
    if (verb == "videoCharacter") return client.try_video_character(b, o);
    if (verb == "videoRemix") return client.try_video_remix(id, b, o);
    if (verb == "generateContent") return client.try_generate_content(args.value("model", ""), b, o);
    if (verb == "videoStatus") return client.try_video_status(family_of(args.value("family", "")), id, o);
    if (verb == "videoWait") {
        gw::WaitOptions w;
        const json wait = args.value("wait", json::object());
        if (wait.contains("interval_ms")) w.interval = milliseconds(wait["interval_ms"].get<long long>());
        if (wait.contains("timeout_ms")) w.timeout = milliseconds(wait["timeout_ms"].get<long long>());
        return client.try_video_wait(family_of(args.value("family", "")), id, w, o);
    }
    if (verb == "request") {
        std::optional<std::string_view> maybe;
        if (body) maybe = *body;
        return client.try_request(args.value("method", ""), args.value("path", ""), maybe, o);
    }
    return std::nullopt;
}

struct Mock {
    gw::Client control;
    json call(const char* method, const char* path, std::optional<std::string_view> body = {})
    {
        auto r = control.try_request(method, path, body);
        if (!r) {
            std::fprintf(stderr, "conformance cpp: %s %s: %s\n", method, path, r.error().what());
            return json();
        }
        return json::parse(*r, nullptr, false);
    }
};

std::string run_case(Mock& mock, const std::string& base_url, const json& c)
{
    mock.call("POST", "/__mock/reset", "{}");
    Seen seen;
    json options = {{"base_url", base_url}, {"api_key", "sk-test"},
                    {"retry_base_delay_ms", 5}, {"retry_max_delay_ms", 20}};
    const json overrides = c.value("options", json::object());
    for (auto it = overrides.begin(); it != overrides.end(); ++it) options[it.key()] = it.value();
    json args = c.value("args", json::object());
    const std::string verb = c.value("operation", "");
    long long setup_requests = 0;
    auto client = gw::Client::create(options.dump());
    if (!client) {
        seen.status = client.error().status();
        seen.out = parse_or_text(client.error().json());
    } else {
        if (c.contains("setup")) {
            const json& setup = c["setup"];
            std::vector<gw::Event> ignored;
            auto made = call(*client, setup.value("operation", ""), setup["request"].dump(), args,
                             ignored, {});
            if (!made || !*made) return "setup failed";
            const json doc = json::parse(**made, nullptr, false);
            const json* id = value_at(doc, setup.value("id_path", "id"));
            if (!id || !id->is_string()) return "setup answer has no id";
            args["id"] = *id;
            setup_requests = static_cast<long long>(mock.call("GET", "/__mock/requests").size());
        }
        for (const json& fault : c.value("faults", json::array())) mock.call("POST", "/__mock/faults", fault.dump());
        std::optional<std::string> body;
        if (c.contains("request")) body = c["request"].dump();
        else if (c.contains("request_text")) body = c["request_text"].get<std::string>();
        gw::ResponseMeta meta;
        gw::CallOptions o;
        o.meta = &meta;
        gw::CancelToken token;
        o.cancel = token;
        std::chrono::steady_clock::time_point cancelled_at{};
        std::thread canceller;
        if (c.contains("cancel")) {
            milliseconds after(c["cancel"]["after_ms"].get<long long>());
            canceller = std::thread([&token, &cancelled_at, after] {
                std::this_thread::sleep_for(after);
                cancelled_at = std::chrono::steady_clock::now();
                token.cancel();
            });
        }
        auto result = call(*client, verb, body, args, seen.events, o);
        auto returned = std::chrono::steady_clock::now();
        if (canceller.joinable()) {
            canceller.join();
            seen.cancel_to_return_ms =
                std::chrono::duration_cast<milliseconds>(returned - cancelled_at).count();
        }
        if (!result) return "the C++ runner knows no verb " + verb;
        if (*result) {
            seen.status = 0;
            seen.out = parse_or_text(**result);
        } else {
            seen.status = result->error().status();
            seen.out = parse_or_text(result->error().json());
            meta = result->error().meta();
        }
        seen.attempts = meta.attempts() > 0 ? meta.attempts() : -1;
        seen.request_id = meta.request_id().has_value();
    }
    const json recorded = mock.call("GET", "/__mock/requests");
    seen.sent = static_cast<long long>(recorded.size()) - setup_requests;
    if (!recorded.empty()) {
        seen.last_body = recorded.back().value("json", json());
        seen.last_headers = recorded.back().value("headers", json::array());
    }
    return check(c, seen);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s <conformance dir> <tsv out>\n", argv[0]);
        return 2;
    }
    const char* base_url = std::getenv("GW_TEST_BASE_URL");
    if (!base_url) {
        std::fprintf(stderr, "conformance cpp: GW_TEST_BASE_URL is not set\n");
        return 2;
    }
    const fs::path dir = argv[1];
    json control_options = {{"base_url", base_url}, {"api_key", "sk-test"}, {"max_retries", 0}};
    Mock mock{gw::Client::create(control_options.dump()).value()};
    const json skips = read_json(dir / "skip.json").value("cpp", json::object());
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir / "cases"))
        if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::ofstream tsv(argv[2]);
    int passed = 0, failed = 0, skipped = 0;
    for (const fs::path& file : files) {
        std::string name = fs::relative(file, dir / "cases").replace_extension().generic_string();
        std::string word, why;
        if (skips.contains(name)) {
            word = "skip";
            why = skips[name].get<std::string>();
            skipped++;
        } else {
            why = run_case(mock, base_url, read_json(file));
            word = why.empty() ? "pass" : "fail";
            (why.empty() ? passed : failed)++;
            if (!why.empty()) std::printf("conformance cpp FAIL %s: %s\n", name.c_str(), why.c_str());
        }
        std::replace(why.begin(), why.end(), '\t', ' ');
        std::replace(why.begin(), why.end(), '\n', ' ');
        tsv << name << '\t' << word << '\t' << why << '\n';
    }
    std::printf("conformance cpp: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
