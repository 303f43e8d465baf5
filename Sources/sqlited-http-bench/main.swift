import Dispatch
import Foundation
import HTTPServer
import Logging

// A benchmark server, not a product: the HTTPServer module answering every request with a fixed small JSON body,
// so that wrk measures the HTTP layer alone (see scripts/bench-http.sh).
// Usage: sqlited-http-bench --port PORT

struct FixedResponder: HTTPHandler {
    static let body = Array(#"{"status":"ok","n":1}"#.utf8)

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, body: .bytes(Self.body))
        response.headers.set(name: "Content-Type", value: "application/json; charset=utf-8")
        return response
    }

    /// A fixed answer costs nothing: given on the event loop, with no thread hand-off.
    func handleOnEventLoop(_ request: HTTPRequest) -> HTTPResponse? {
        handle(request)
    }
}

var port: UInt16 = 8081
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    if argument == "--port", let value = arguments.next(), let number = UInt16(value) {
        port = number
    } else {
        FileHandle.standardError.write(Data("usage: sqlited-http-bench [--port PORT]\n".utf8))
        exit(2)
    }
}

var logger = Logger(label: "sqlited-http-bench")
logger.logLevel = .warning
var configuration = HTTPServerConfiguration()
configuration.listeners = [.tcp(host: "127.0.0.1", port: port)]
let server = HTTPServer(configuration: configuration, handler: FixedResponder(), logger: logger)
try server.start()
for address in server.boundAddresses {
    FileHandle.standardError.write(Data("sqlited-http-bench: listening on http://\(address)\n".utf8))
}
signal(SIGTERM, SIG_DFL)
signal(SIGINT, SIG_DFL)
dispatchMain()
