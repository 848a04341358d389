//! `make bench`: figures for the hot paths, printed, not asserted.
//!
//! - SSE parsing throughput (in memory, no HTTP)
//! - limit checking cost per request
//! - a request's JSON from the caller's text to the bytes sent (parse, check,
//!   serialise: what serde_json's preserve_order and arbitrary_precision cost)
//! - chat round trips to gw-mock over loopback: latency percentiles, one thread
//!   and eight threads sharing one client
//! - a long streamed answer: events per second and peak RSS (the stream is
//!   never buffered whole, so RSS should not grow with its length)

use std::io::Cursor;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gw::sse::SseParser;
use gw::{ops, Client, Options};
use gw_mock::MockGateway;
use serde_json::json;

fn main() {
    sse_throughput();
    validation_cost();
    request_json_cost();
    let mock = MockGateway::start();
    round_trips(&mock);
    shared_client(&mock);
    long_stream(&mock);
}

fn sse_throughput() {
    let chunk = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"word "},"finish_reason":null}]}"#;
    let mut text = String::new();
    for _ in 0..100_000 {
        text.push_str(chunk);
        text.push_str("\n\n");
    }
    let bytes = text.into_bytes();
    let started = Instant::now();
    let mut parser = SseParser::new(Cursor::new(&bytes), 1 << 20);
    let mut events = 0u64;
    while let Some(_ev) = parser.next_event().expect("parses") {
        events += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "sse_parse: {events} events, {:.1} MB in {:.1} ms = {:.0} MB/s, {:.2} M events/s",
        bytes.len() as f64 / 1e6,
        secs * 1e3,
        bytes.len() as f64 / 1e6 / secs,
        events as f64 / 1e6 / secs
    );
}

fn validation_cost() {
    let messages: Vec<_> = (0..50)
        .map(|i| json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": format!("message {i}")}))
        .collect();
    let body = json!({"model": "m", "messages": messages, "temperature": 0.7, "stop": ["a", "b"]});
    let rounds = 20_000;
    let started = Instant::now();
    for _ in 0..rounds {
        gw::validate::check(ops::CHAT.rules, &body).expect("valid");
    }
    let per = started.elapsed() / rounds;
    println!(
        "validate_chat_50_messages: {:.1} us per request",
        per.as_secs_f64() * 1e6
    );
}

fn request_json_cost() {
    let messages: Vec<_> = (0..50)
        .map(|i| json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": format!("message {i}")}))
        .collect();
    let text = json!({"model": "m", "messages": messages, "temperature": 0.7, "top_p": 0.95,
                      "max_tokens": 1024, "seed": 123456789, "stop": ["a", "b"]})
    .to_string();
    let rounds = 20_000;
    let started = Instant::now();
    let mut sent = 0;
    for _ in 0..rounds {
        let body: serde_json::Value = serde_json::from_str(&text).expect("parses");
        gw::validate::check(ops::CHAT.rules, &body).expect("valid");
        sent += serde_json::to_vec(&body).expect("serialises").len();
    }
    let per = started.elapsed() / rounds;
    println!(
        "request_json_chat_50_messages: {:.1} us per request (parse, check, serialise; {} bytes)",
        per.as_secs_f64() * 1e6,
        sent / rounds as usize
    );
}

fn client(mock: &MockGateway) -> Client {
    Client::new(Options {
        base_url: Some(mock.url()),
        api_key: Some(mock.api_key()),
        ..Options::default()
    })
    .expect("client")
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn round_trips(mock: &MockGateway) {
    let c = client(mock);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hello there"}]});
    for _ in 0..50 {
        c.call(&ops::CHAT, &[], Some(&body)).expect("warm-up");
    }
    let mut took: Vec<Duration> = (0..1000)
        .map(|_| {
            let t = Instant::now();
            c.call(&ops::CHAT, &[], Some(&body)).expect("chat");
            t.elapsed()
        })
        .collect();
    took.sort();
    println!(
        "chat_round_trip_loopback (1 thread, 1000 calls): p50 {:.0} us, p90 {:.0} us, p99 {:.0} us",
        percentile(&took, 0.5),
        percentile(&took, 0.9),
        percentile(&took, 0.99)
    );
}

fn shared_client(mock: &MockGateway) {
    let c = Arc::new(client(mock));
    let body = Arc::new(json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}));
    let started = Instant::now();
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (c, body) = (Arc::clone(&c), Arc::clone(&body));
            std::thread::spawn(move || {
                for _ in 0..250 {
                    c.call(&ops::CHAT, &[], Some(&body)).expect("chat");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "chat_shared_client (8 threads, 2000 calls): {:.0} calls/s",
        2000.0 / secs
    );
}

fn long_stream(mock: &MockGateway) {
    let c = client(mock);
    let words = "lorem ipsum dolor sit amet ".repeat(4000); // 20,000 words -> 20,000 events
    let body = json!({"model": "m", "messages": [{"role": "user", "content": words}]});
    let rss_before = peak_rss_kb();
    let started = Instant::now();
    let mut events = 0u64;
    c.stream(&ops::CHAT, &body, &mut |_| {
        events += 1;
        true
    })
    .expect("stream");
    let secs = started.elapsed().as_secs_f64();
    println!(
        "chat_stream_loopback: {events} events in {:.0} ms = {:.0} events/s; peak RSS {} KiB before, {} KiB after (this process also runs the mock, which renders the whole stream)",
        secs * 1e3,
        events as f64 / secs,
        rss_before,
        peak_rss_kb()
    );
}

fn peak_rss_kb() -> i64 {
    // SAFETY: getrusage fills the struct we pass.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_maxrss
    }
}
