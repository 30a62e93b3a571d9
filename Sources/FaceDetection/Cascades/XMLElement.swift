/// A minimal XML element tree: enough for OpenCV's cascade files (elements, text, comments,
/// declarations; no attributes are needed, so they are skipped). Malformed input is an error.
struct XMLNode {
    let name: String
    var children: [XMLNode] = []
    var text = ""

    /// The first child called `name`.
    func child(_ name: String) -> XMLNode? {
        children.first { $0.name == name }
    }

    /// The text, split at XML's whitespace (space, tab, line feed, carriage return).
    var fields: [Substring] {
        text.utf8.split(whereSeparator: Parser.isWhitespace).map { Substring($0) }
    }

    /// Parses a whole document and returns its root element.
    static func parse(_ bytes: [UInt8]) throws(XMLError) -> XMLNode {
        var parser = Parser(bytes: bytes)
        return try parser.document()
    }
}

struct XMLError: Error, Equatable {
    let reason: String
    let offset: Int
}

private struct Parser {
    let bytes: [UInt8]
    var position = 0

    mutating func document() throws(XMLError) -> XMLNode {
        try skipMiscellany()
        guard peek("<") else { throw fail("no root element") }
        let root = try element()
        try skipMiscellany()
        guard position == bytes.count else { throw fail("content after the root element") }
        return root
    }

    /// Whitespace, comments, `<?…?>` declarations and `<!…>` doctypes.
    private mutating func skipMiscellany() throws(XMLError) {
        while true {
            skipWhitespace()
            if peek("<!--") {
                try skip(past: "-->")
            } else if peek("<?") {
                try skip(past: "?>")
            } else if peek("<!") {
                try skip(past: ">")
            } else {
                return
            }
        }
    }

    private mutating func element() throws(XMLError) -> XMLNode {
        position += 1  // <
        let name = readName()
        guard !name.isEmpty else { throw fail("element without a name") }
        // Attributes are not used by cascade files: skip to the end of the start tag.
        while position < bytes.count && bytes[position] != UInt8(ascii: ">") { position += 1 }
        guard position < bytes.count else { throw fail("unterminated start tag <\(name)") }
        var node = XMLNode(name: name)
        if bytes[position - 1] == UInt8(ascii: "/") {
            position += 1
            return node
        }
        position += 1
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw fail("<\(name)> is never closed") }
            if peek("<!--") {
                try skip(past: "-->")
            } else if peek("</") {
                position += 2
                let closing = readName()
                guard closing == name else { throw fail("</\(closing)> closes <\(name)>") }
                skipWhitespace()
                guard peek(">") else { throw fail("unterminated end tag </\(closing)") }
                position += 1
                node.text = String(decoding: text, as: UTF8.self)
                return node
            } else if peek("<") {
                node.children.append(try element())
            } else {
                let start = position
                while position < bytes.count, bytes[position] != UInt8(ascii: "<") { position += 1 }
                text += bytes[start..<position]
            }
        }
    }

    private mutating func readName() -> String {
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: ">"), bytes[position] != UInt8(ascii: "/"),
            !Self.isWhitespace(bytes[position])
        {
            position += 1
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 10 || byte == 9 || byte == 13
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
    }

    /// Whether `text` comes next (compared in place: this runs for every tag a 1 MB cascade file has).
    private func peek(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { utf8 in
            position + utf8.count <= bytes.count && utf8.indices.allSatisfy { bytes[position + $0] == utf8[$0] }
        }
    }

    private mutating func skip(past terminator: StaticString) throws(XMLError) {
        while position + terminator.utf8CodeUnitCount <= bytes.count {
            if peek(terminator) {
                position += terminator.utf8CodeUnitCount
                return
            }
            position += 1
        }
        throw fail("missing \(terminator)")
    }

    private func fail(_ reason: String) -> XMLError {
        XMLError(reason: reason, offset: position)
    }
}
