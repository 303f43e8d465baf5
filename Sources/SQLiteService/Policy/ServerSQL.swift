/// The text of one of the server's own statements (on its tables, ``SQLPolicy/serverTablePrefix``), and the form
/// under which the local writer caches it (``tagged``: behind ``SQLPolicy/serverStatementTag``, a text no client
/// can send), made once when the text is a constant rather than on every run.
struct ServerSQL: ExpressibleByStringLiteral {
    let text: String
    let tagged: String

    init(_ text: String) {
        self.text = text
        tagged = SQLPolicy.serverStatementTag + text
    }

    init(stringLiteral text: String) {
        self.init(text)
    }
}
