import Foundation
import Testing

/// `GET /openapi.json` from the real binary, validated by a validator nobody here wrote: PyPI's
/// `openapi-spec-validator` against the OpenAPI 3.1 schema (`.ci/run` installs it; in CI the test requires it).
@Suite(.enabled(if: OpenAPIValidator.available, "python3 with openapi-spec-validator is not installed"))
struct OpenAPIValidationTests {
    @Test func document_isAValidOpenAPI31Document() throws {
        let python = try #require(
            OpenAPIValidator.python,
            "python3 with openapi-spec-validator is required (.ci/run installs it)"
        )
        let response = try SharedSqlited.get().makeClient().get("/openapi.json")
        #expect(response.status == 200)
        let directory = try TemporaryDirectory(prefix: "sqlited-openapi")
        let file = directory.path("openapi.json")
        try Data(response.bodyText.utf8).write(to: file)
        let result = try python.run([
            "-c",
            """
            import json, sys
            from openapi_spec_validator import validate
            spec = json.load(open(sys.argv[1]))
            assert spec["openapi"].startswith("3.1"), spec["openapi"]
            validate(spec)
            print(len(spec["paths"]))
            """,
            file.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 15, "\(result.stdout)")
    }
}

/// python3 with PyPI's `openapi-spec-validator`, when installed.
enum OpenAPIValidator {
    static let python: ExternalTool? = {
        guard let python = ExternalTool("python3"),
            let probe = try? python.run(["-c", "import openapi_spec_validator"]), probe.status == 0
        else { return nil }
        return python
    }()

    /// In CI the suite runs whatever: a missing validator is then a failure, not a skip.
    static var available: Bool { python != nil || ProcessInfo.processInfo.environment["CI"] != nil }
}
