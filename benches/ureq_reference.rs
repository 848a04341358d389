//! `make bench`'s reference for the plain call: the same chat request sent with
//! ureq alone (a default keep-alive `Agent`, no gw), so the table shows what the
//! HTTP client gw is built on costs by itself, between the raw-socket floor and
//! gw. Run by scripts/bench.sh against its load server:
//!
//!   ureq_reference latency port=P n=N warmup=W
//!
//! Prints one line in gwbench's format: calls, p50_us, p99_us, cpu_us_per_call.

use std::time::Instant;

/// The request gwbench's latency mode sends (bench/gwbench.c, `chat_request(20)`).
const BODY: &str = r#"{"model":"events-20","messages":[{"role":"user","content":"Say a few words."}],"max_tokens":64}"#;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("latency") {
        // `cargo bench` runs every bench target with `--bench`: this one needs the
        // load server that scripts/bench.sh starts.
        println!("ureq_reference: run by scripts/bench.sh (make bench)");
        return;
    }
    let value = |key: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(key)?.strip_prefix('='))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or_else(|| fail(&format!("{key}=N is missing")))
    };
    let (port, n, warmup) = (value("port"), value("n"), value("warmup"));
    let url = format!("http://127.0.0.1:{port}/v1/chat/completions");
    let agent = ureq::Agent::new_with_defaults();
    let call = || {
        let mut answer = agent
            .post(&url)
            .header("authorization", "Bearer bench-key")
            .header("content-type", "application/json")
            .send(BODY)
            .unwrap_or_else(|e| fail(&format!("the call failed: {e}")));
        let text = answer
            .body_mut()
            .read_to_string()
            .unwrap_or_else(|e| fail(&format!("reading the answer failed: {e}")));
        if !text.contains("chat.completion") {
            fail(&format!("not a chat completion: {text}"));
        }
    };
    for _ in 0..warmup {
        call();
    }
    let mut times_ns = Vec::with_capacity(n as usize);
    let cpu_start = cpu_us();
    for _ in 0..n {
        let start = Instant::now();
        call();
        times_ns.push(start.elapsed().as_nanos() as u64);
    }
    let cpu = cpu_us() - cpu_start;
    times_ns.sort_unstable();
    let at = |q: f64| times_ns[((times_ns.len() - 1) as f64 * q + 0.5) as usize] as f64 / 1000.0;
    println!(
        "calls={n} p50_us={:.2} p99_us={:.2} cpu_us_per_call={:.3}",
        at(0.50),
        at(0.99),
        cpu / n as f64
    );
}

/// User and system CPU of this process so far, in microseconds.
fn cpu_us() -> f64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let us = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
    us(usage.ru_utime) + us(usage.ru_stime)
}

fn fail(what: &str) -> ! {
    eprintln!("ureq_reference: {what}");
    std::process::exit(1);
}
