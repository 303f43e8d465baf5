import Foundation
import HTTPServer
import Testing

@testable import SQLiteService

/// The web console's routes (issue #31) through the service's handler: `GET /ui` and every embedded file with its
/// type, security fields and entity tag; `GET /` redirecting; no token needed; 404 everywhere when it is off.
@Suite struct ConsoleRouteTests {
    static let securityFields = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
    ]

    static func request(_ method: String, _ target: String, headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: HTTPHeaders(headers), body: [])
    }

    /// `/ui` is the page; each file the page and its modules load is served from `/ui/{name}` with its media type,
    /// the security fields, `Cache-Control: no-cache` and its entity tag; both doors answer alike.
    @Test func everyAsset_isServedWithItsTypeAndTheSecurityFields() throws {
        let fixture = try ServiceFixture()
        let names = ConsoleAsset.files.map(\.name)
        #expect(
            Set(names) == [
                "index.html", "console.css", "app.js", "api.js", "json.js", "dom.js", "tables.js",
                "sql.js", "status.js",
            ]
        )
        for name in names {
            let target = name == "index.html" ? "/ui" : "/ui/\(name)"
            let asset = try #require(ConsoleAsset.byName[name])
            for response in [
                fixture.service.handle(Self.request("GET", target)),
                try #require(fixture.service.handleOnEventLoop(Self.request("GET", target))),
            ] {
                #expect(response.status.code == 200, "\(target)")
                #expect(try bodyBytes(response) == asset.bytes, "\(target)")
                #expect(response.headers["Content-Type"] == asset.contentType, "\(target)")
                #expect(response.headers["Cache-Control"] == "no-cache")
                #expect(response.headers["ETag"] == asset.etag)
                for (field, value) in Self.securityFields {
                    #expect(response.headers[field] == value, "\(target): \(field)")
                }
            }
        }
        #expect(ConsoleAsset.byName["index.html"]?.contentType == "text/html; charset=utf-8")
        #expect(ConsoleAsset.byName["app.js"]?.contentType == "text/javascript; charset=utf-8")
        #expect(ConsoleAsset.byName["console.css"]?.contentType == "text/css; charset=utf-8")
        #expect(fixture.send("HEAD", "/ui").status.code == 200)
    }

    /// What the page loads is served: every `/ui/…` reference in the HTML and every module a script imports.
    @Test func everyReference_namesAServedAsset() throws {
        let html = String(decoding: try #require(ConsoleAsset.byName["index.html"]).bytes, as: UTF8.self)
        var referenced = Set(Self.matches(#"(?:href|src)="/ui/([^"]+)""#, in: html))
        for asset in ConsoleAsset.files where asset.name.hasSuffix(".js") {
            referenced.formUnion(Self.matches(#"from '\./([^']+)'"#, in: asset.text))
        }
        #expect(referenced.count >= 8)
        for name in referenced { #expect(ConsoleAsset.byName[name] != nil, "\(name)") }
        // Every file but the page is used by it.
        #expect(referenced.union(["index.html"]) == Set(ConsoleAsset.byName.keys))
    }

    /// The content security policy leaves no room for inline code: no inline script, style or handler attribute in
    /// the page, and no script writes HTML (`innerHTML`, `outerHTML`, `insertAdjacentHTML`, `document.write`) or
    /// a `style` attribute.
    @Test func assets_haveNoInlineCodeAndWriteNoHTML() throws {
        let html = String(decoding: try #require(ConsoleAsset.byName["index.html"]).bytes, as: UTF8.self)
        #expect(Self.matches(#"<script(?![^>]*\bsrc=)[^>]*>"#, in: html).isEmpty && !html.contains("<style"))
        #expect(Self.matches(#"\son[a-z]+="#, in: html).isEmpty && !html.contains("style="))
        for asset in ConsoleAsset.files where asset.name.hasSuffix(".js") {
            for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "'style'"] {
                #expect(!asset.text.contains(forbidden), "\(asset.name): \(forbidden)")
            }
        }
    }

    /// The embedded files are the ones in `Console/Assets/`: `make console-assets` was run after the last edit.
    @Test func embeddedFiles_matchTheAssetsDirectory() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/SQLiteService/Console/Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
        #expect(Set(names) == Set(ConsoleAsset.files.map(\.name)), "run `make console-assets`")
        for asset in ConsoleAsset.files {
            let onDisk = try String(contentsOf: directory.appendingPathComponent(asset.name), encoding: .utf8)
            #expect(onDisk == asset.text, "\(asset.name) changed since `make console-assets`")
        }
    }

    /// A client holding the entity tag gets 304 with no body (and the tag); another tag or none gets the file.
    @Test func ifNoneMatch_answers304() throws {
        let fixture = try ServiceFixture()
        let asset = try #require(ConsoleAsset.byName["app.js"])
        let cached = fixture.service.handle(Self.request("GET", "/ui/app.js", headers: [("If-None-Match", asset.etag)]))
        #expect(cached.status.code == 304)
        #expect(try bodyBytes(cached).isEmpty)
        #expect(cached.headers["ETag"] == asset.etag)
        let listed = fixture.service.handle(
            Self.request("GET", "/ui/app.js", headers: [("If-None-Match", "\"other\", W/\(asset.etag)")])
        )
        #expect(listed.status.code == 304)
        let other = fixture.service.handle(Self.request("GET", "/ui/app.js", headers: [("If-None-Match", "\"x\"")]))
        #expect(other.status.code == 200)
        #expect(asset.etag.count == 34 && asset.etag.hasPrefix("\""))
    }

    /// `GET /` and `GET /ui/` redirect to `/ui`; an unknown file is the API's 404; other methods are 405.
    @Test func root_redirects_unknownFileIs404_otherMethods405() throws {
        let fixture = try ServiceFixture()
        for target in ["/", "/ui/"] {
            let response = fixture.send("GET", target)
            #expect(response.status.code == 302, "\(target)")
            #expect(response.headers["Location"] == "/ui")
        }
        for target in ["/ui/nothing.js", "/ui/app.js/x", "/uix"] {
            let response = fixture.send("GET", target)
            #expect(response.status.code == 404, "\(target)")
            #expect(try bodyObject(response)["error"] != nil)
        }
        let post = fixture.send("POST", "/ui", json: "{}")
        #expect(post.status.code == 405)
        #expect(post.headers["Allow"] == "GET, HEAD")
    }

    /// The console needs no token (it holds no data; the API asks the page for one), while the API still does.
    @Test func console_needsNoToken() throws {
        let fixture = try ServiceFixture()
        let entry = try TokenStore.Entry(name: "ops", sha256Hex: String(repeating: "a", count: 64), role: .admin)
        fixture.service.setTokens(try TokenStore(entries: [entry]))
        #expect(fixture.send("GET", "/ui").status.code == 200)
        #expect(fixture.send("GET", "/ui/app.js").status.code == 200)
        #expect(fixture.send("GET", "/").status.code == 302)
        #expect(fixture.send("GET", "/tables").status.code == 401)
    }

    /// Off (`console.enabled: false`), every console path is a 404 whatever the method, on both doors, and the
    /// API is unchanged; turned on again (a reload), it is back.
    @Test func consoleOff_is404Everywhere() throws {
        var options = ServiceOptions()
        options.consoleEnabled = false
        let fixture = try ServiceFixture(options: options)
        for (method, target) in [("GET", "/"), ("GET", "/ui"), ("GET", "/ui/app.js"), ("HEAD", "/ui"), ("POST", "/ui")]
        {
            let response = fixture.send(method, target)
            #expect(response.status.code == 404, "\(method) \(target)")
            #expect(response.headers["Content-Security-Policy"] == nil)
            let early = fixture.service.handleOnEventLoop(Self.request(method, target))
            #expect(early?.status.code == 404, "\(method) \(target) on the event loop")
        }
        #expect(fixture.send("GET", "/health").status.code == 200)
        var on = fixture.service.options
        on.consoleEnabled = true
        fixture.service.setOptions(on)
        #expect(fixture.send("GET", "/ui").status.code == 200)
    }

    /// The metrics label of each console path is its template, never the file name asked for.
    @Test func labels_areTemplates() {
        #expect(ServiceEndpoint(path: "/").label == "/")
        #expect(ServiceEndpoint(path: "/ui").label == "/ui")
        #expect(ServiceEndpoint(path: "/ui/whatever-a-client-sends").label == "/ui/{asset}")
        #expect(ServiceEndpoint(path: "/uix") == .other)
    }

    static func matches(_ pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            let range = match.numberOfRanges > 1 ? match.range(at: 1) : match.range
            return Range(range, in: text).map { String(text[$0]) }
        }
    }
}
