import Foundation
import GRDB

/// A random tag for each table of vectors that searches keep in memory or in a file (faces' descriptors
/// and embeddings, photos' prints): every insert, update and delete there replaces it (triggers, which
/// also fire for the rows a removed image takes with it), so that a gallery tells in one read whether it
/// still holds the table's rows. Counts and largest ids cannot tell: a database restored from a backup
/// hands out the same ids again.
enum TableTags {
    static let table = "table_tags"

    static func createTable(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE \(table) (name TEXT PRIMARY KEY, tag BLOB NOT NULL)")
    }

    /// Gives `tracked` a tag and the triggers that replace it.
    static func track(_ tracked: String, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO \(table) (name, tag) VALUES (?, randomblob(16))", arguments: [tracked])
        for change in ["insert", "update", "delete"] {
            try db.execute(
                sql: """
                    CREATE TRIGGER \(tracked)_\(change)_tag AFTER \(change.uppercased()) ON \(tracked)
                    BEGIN UPDATE \(table) SET tag = randomblob(16) WHERE name = '\(tracked)'; END
                    """)
        }
    }

    /// The tags of `tracked`, one after the other, read in one statement; a missing one is an error: without it
    /// no change would show.
    static func tag(of tracked: [String], _ connection: any StoreConnection) throws -> Data {
        let placeholders = Array(repeating: "?", count: tracked.count).joined(separator: ", ")
        let tags = try Dictionary(
            connection.rows(
                "SELECT name, tag FROM \(table) WHERE name IN (\(placeholders))", tracked.map(StoreValue.text)
            )
            .map { row throws(CatalogError) -> (String, Data) in (try row.get(0), try row.get(1)) },
            uniquingKeysWith: { first, _ in first })
        return try tracked.reduce(into: Data()) { tag, name in
            guard let one = tags[name] else { throw StoreDamage(reason: "\(table) has no row for \(name)") }
            tag += one
        }
    }

    /// The tag of `tracked`.
    static func tag(of tracked: String, _ connection: any StoreConnection) throws -> Data {
        try tag(of: [tracked], connection)
    }
}
