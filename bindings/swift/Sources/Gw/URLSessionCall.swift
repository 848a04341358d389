import CGw
import Foundation

// A plain call through the URLSession transport: the same derived handle, options, errors and
// metadata as a blocking call, with the exchange driven by URLSession instead of a thread.

extension GwClient {
    /// One call's exchange, made on its own derived handle and driven by `session` to its end.
    /// Task cancellation cancels it in gw and cancels its URLSession task.
    /// With `progress` (a video wait's), each event the exchange gives (a poll's record) goes to
    /// it; when it throws, its error is kept in the box and the wait is stopped as gw's
    /// progress callback stops it (`GW_CANCELLED` fed to the exchange).
    func call(
        _ options: GwCallOptions, _ session: URLSessionTransport, _ make: ExchangeMaker, progress box: ProgressBox? = nil
    ) async throws -> Data {
        try Task.checkCancellation()
        let handle = try base.derive(options.json())
        var made: OpaquePointer?
        var err: UnsafeMutablePointer<CChar>?
        let status = make(handle.pointer, &made, &err)
        let errText = takeData(err)
        guard status == GW_OK, let exchange = made else {
            // Refused before anything was sent (a bad argument, a limit broken).
            gw_exchange_free(made)
            return try finish(Outcome(status: status == GW_OK ? GW_INTERNAL : status, text: errText, meta: nil), options)
        }
        let run = ExchangeRun(exchange, handle: handle, transport: session, wantsMeta: options.onResponse != nil)
        let outcome = await withTaskCancellationHandler {
            run.start()
            guard let box else { return await run.outcome() }
            while true {
                switch await run.next() {
                case .event(let event):
                    do {
                        try box.progress(event.data)
                    } catch {
                        box.thrown = error
                        run.stop()
                    }
                case .done(let outcome):
                    return outcome
                }
            }
        } onCancel: {
            run.cancel()
        }
        return try finish(outcome, options)
    }

    /// Options that configure gw's own stack, which URLSession cannot honour: refused rather
    /// than silently set aside.
    static func checkForURLSession(_ options: JSONValue) throws {
        let why = [
            "ca_file": "URLSession checks certificates with the system's trust",
            "ca_pem": "URLSession checks certificates with the system's trust",
            "proxy": "URLSession takes its proxy from the system or the configuration's connectionProxyDictionary",
        ]
        for (key, reason) in why.sorted(by: { $0.key < $1.key }) where options[key] != nil && options[key] != .null {
            throw GwError.invalidArgument(key, "not with the URLSession transport (\(reason)); use GwTransport.builtIn")
        }
        if options["tls_verifier"]?.stringValue == GwTLSVerifier.webpki.rawValue {
            throw GwError.invalidArgument(
                "tls_verifier",
                "webpki is not with the URLSession transport (URLSession checks certificates with the system's trust); "
                    + "use GwTransport.builtIn")
        }
    }
}
