import Foundation

/// Where a PostgreSQL catalog is: `postgres://user[:password]@host[:port]/database[?sslmode=…&sslrootcert=…]`,
/// as libpq reads it. A password not in the URL comes from `PGPASSWORD`, else from the password file
/// (`PGPASSFILE`, else `~/.pgpass`). The password is never part of what is shown: ``description`` leaves it out.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How the connection is encrypted: libpq's `sslmode`.
    public enum Encryption: String, Sendable {
        /// Never TLS.
        case disable
        /// TLS where the server offers it, else none (libpq's default).
        case prefer
        /// TLS or no connection, the server's certificate not checked.
        case require
        /// TLS with the server's certificate checked against the trusted authorities, its name not.
        case verifyCA = "verify-ca"
        /// TLS with the server's certificate checked against the trusted authorities and its name against the
        /// host's.
        case verifyFull = "verify-full"
    }

    public let host: String
    public let port: Int
    public let user: String
    public let database: String
    public let encryption: Encryption
    /// A PEM file of the authorities whose certificates `verify-ca` and `verify-full` trust, instead of this
    /// machine's (libpq's `sslrootcert`, or `PGSSLROOTCERT`): a private authority's, or a self-signed server's.
    public let trustedCertificates: String?
    /// The password (from the URL, `PGPASSWORD` or the password file), if any: never shown.
    public let password: String?

    /// Whether `text` names a PostgreSQL catalog rather than a SQLite file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads a URL; the environment supplies what it leaves out (`PGUSER`, the password), as for libpq.
    public init(_ url: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(CatalogError)
    {
        let shown = Self.withoutPassword(url)
        guard Self.isURL(url), let components = URLComponents(string: url), let host = components.host, !host.isEmpty
        else {
            throw .storage(path: shown, reason: "not a PostgreSQL URL: postgres://user@host:port/database")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 5432
        user = components.user ?? environment["PGUSER"] ?? NSUserName()
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? user : path
        let options = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        if let unknown = options.keys.sorted().first(where: { $0 != "sslmode" && $0 != "sslrootcert" }) {
            throw .storage(path: shown, reason: "unknown URL option \(unknown) (only sslmode and sslrootcert are read)")
        }
        switch options["sslmode"] {
        case nil, "prefer", "allow": encryption = .prefer
        case "disable": encryption = .disable
        case "require": encryption = .require
        case "verify-ca": encryption = .verifyCA
        case "verify-full": encryption = .verifyFull
        case let mode?:
            throw .storage(
                path: shown, reason: "sslmode=\(mode): not one of disable, prefer, require, verify-ca, verify-full")
        }
        let roots = options["sslrootcert"] ?? environment["PGSSLROOTCERT"]
        trustedCertificates = roots == "system" || roots?.isEmpty == true ? nil : roots
        let fromFile = { [host = self.host, port, database, user] in
            PasswordFile(environment: environment)?.password(host: host, port: port, database: database, user: user)
        }
        password = components.password ?? environment["PGPASSWORD"] ?? fromFile()
    }

    /// The folder where this machine keeps what it caches of the catalog (search galleries, thumbnails):
    /// `$XDG_CACHE_HOME/facesearch/postgres/<host>-<port>-<database>`, else under `~/.cache`; made if missing.
    func cacheFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let cache = environment["XDG_CACHE_HOME"] ?? NSHomeDirectory() + "/.cache"
        let name = "\(host)-\(port)-\(database)".map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "-" }
        let folder = cache + "/facesearch/postgres/" + String(name)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The URL without its password.
    public var description: String {
        let host = host.contains(":") ? "[\(host)]" : host
        let user = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        let database = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? database
        let roots = trustedCertificates.map { $0.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? $0 }
        let options =
            (encryption == .prefer ? [] : ["sslmode=\(encryption.rawValue)"])
            + (roots.map { ["sslrootcert=\($0)"] } ?? [])
        let query = options.isEmpty ? "" : "?" + options.joined(separator: "&")
        return "postgres://\(user)@\(host):\(port)/\(database)\(query)"
    }

    /// A catalog's location (a file's path, or a URL that may hold a password) as it may be shown.
    public static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
            let colon = text[scheme.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<colon] + text[at...])
    }
}

/// libpq's password file: lines of `host:port:database:user:password`, `*` matching anything, `\:` and `\\`
/// escaped. Like libpq, a file that others than its owner can read is not used.
struct PasswordFile {
    let lines: [[String]]

    init?(environment: [String: String]) {
        let path =
            environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
            ?? NSHomeDirectory() + "/.pgpass"
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o077 == 0,
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        lines = text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") }.map(Self.fields)
    }

    func password(host: String, port: Int, database: String, user: String) -> String? {
        let wanted = [host, String(port), database, user]
        return lines.first { fields in
            fields.count == 5 && zip(fields, wanted).allSatisfy { field, value in field == "*" || field == value }
        }?[4]
    }

    /// A line's fields, escapes undone.
    private static func fields(_ line: Substring) -> [String] {
        var fields = [""], escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 5 {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }
}
