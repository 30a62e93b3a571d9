import Catalog
import Foundation
import Testing

/// PostgreSQL URLs read as libpq reads them, their passwords found where libpq finds them and never shown.
struct PostgresLocationTests {
    @Test func aURLNamesTheServerTheUserAndTheDatabase() throws {
        let url = try PostgresLocation(
            "postgres://ann:s%3Acret@db.example:6543/photos?sslmode=require", environment: [:])
        #expect(url.host == "db.example" && url.port == 6543 && url.user == "ann" && url.database == "photos")
        #expect(url.encryption == .require)
        #expect(url.description == "postgres://ann@db.example:6543/photos?sslmode=require")
        #expect(!url.description.contains("cret"))

        let plain = try PostgresLocation("postgresql://ann@127.0.0.1", environment: [:])
        #expect(plain.port == 5432 && plain.database == "ann" && plain.encryption == .prefer)
        let loopback = try PostgresLocation("postgres://ann@[::1]:5433/x", environment: [:])
        #expect(loopback.host == "::1" && loopback.description == "postgres://ann@[::1]:5433/x")
        #expect(try PostgresLocation("postgres://127.0.0.1/x", environment: ["PGUSER": "bo"]).user == "bo")
        let checked = try PostgresLocation(
            "postgres://ann@db.example/x?sslrootcert=/etc/ca%20roots.pem&sslmode=verify-ca", environment: [:])
        #expect(checked.encryption == .verifyCA && checked.trustedCertificates == "/etc/ca roots.pem")
        #expect(
            checked.description == "postgres://ann@db.example:5432/x?sslmode=verify-ca&sslrootcert=/etc/ca%20roots.pem")
        let system = try PostgresLocation("postgres://ann@db.example/x?sslrootcert=system", environment: [:])
        #expect(system.trustedCertificates == nil)
        let fromEnvironment = try PostgresLocation("postgres://ann@db.example/x", environment: ["PGSSLROOTCERT": "/ca"])
        #expect(fromEnvironment.trustedCertificates == "/ca")
    }

    @Test func aURLThatCannotBeReadIsSaidWithoutItsPassword() {
        for (url, reason) in [
            ("postgres://ann:secret@/photos", "not a PostgreSQL URL"),
            ("postgres://ann:secret@host/photos?sslmode=sometimes", "sslmode=sometimes: not one of"),
            ("postgres://ann:secret@host/photos?application_name=x", "unknown URL option application_name"),
        ] {
            #expect {
                try PostgresLocation(url, environment: [:])
            } throws: { error in
                "\(error)".contains(reason) && !"\(error)".contains("secret")
            }
        }
    }

    @Test func thePasswordComesFromTheURLThenTheEnvironmentThenThePasswordFile() throws {
        let folder = NSTemporaryDirectory() + "pgpass-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/pgpass"
        try """
        # a comment
        other:*:*:ann:not this one
        127.0.0.1:5432:photos:ann:from\\:the\\\\file
        *:*:*:*:anyone's
        """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let environment = ["PGPASSFILE": file]
        let url = "postgres://ann@127.0.0.1/photos"
        #expect(try PostgresLocation(url, environment: environment).password == "from:the\\file")
        #expect(try PostgresLocation("postgres://bo@127.0.0.1/x", environment: environment).password == "anyone's")
        #expect(
            try PostgresLocation(url, environment: environment.merging(["PGPASSWORD": "env"]) { $1 }).password == "env")
        #expect(try PostgresLocation("postgres://ann:url@127.0.0.1/photos", environment: environment).password == "url")
        // A file others can read is not used, as libpq does not use it.
        chmod(file, 0o644)
        #expect(try PostgresLocation(url, environment: environment).password == nil)
    }
}
