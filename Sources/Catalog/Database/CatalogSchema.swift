import GRDB

/// Every table a catalog holds and the migrations that made them, oldest first: the images, then the
/// faces, their vectors and people, then the photos' prints, the runs of indexing and an index for listing
/// people. Identifiers are those databases were made with ("indexer faces …" from when faces were an
/// indexer's tables), so every database made before opens as it is and is upgraded in place. An analysis's
/// own tables follow (``PhotoAnalysis/migrations``).
enum CatalogSchema {
    static func migrator(adding analyses: [any PhotoAnalysis] = []) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("images") { db in
            try db.create(table: ImageRecord.databaseTableName) { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("path", .text).notNull().unique()
                t.column("size", .integer).notNull()
                t.column("modified", .double).notNull()
                t.column("hash", .text).notNull()
                t.column("width", .integer).notNull()
                t.column("height", .integer).notNull()
                t.column("status", .text).notNull()
                t.column("error", .text)
            }
        }
        migrator.registerMigration("indexer faces", migrate: FaceStore.createTable)
        for (name, migration) in [
            ("embeddings", FaceStore.addEmbeddings), ("persons", FaceStore.addPersons),
            ("embedding table", FaceStore.moveEmbeddings), ("descriptor table", FaceStore.moveDescriptors),
            ("tags", FaceStore.addTags),
        ] {
            migrator.registerMigration("indexer faces \(name)", migrate: migration)
        }
        migrator.registerMigration("photo prints", migrate: PhotoStore.createTable)
        migrator.registerMigration("indexing runs", migrate: IndexingHistory.createTable)
        migrator.registerMigration("indexer faces people index", migrate: FaceStore.addPeopleIndex)
        migrator.registerMigration("library roots", migrate: LibraryRoots.createTable)
        migrator.registerMigration("cleanup journal", migrate: CleanupJournal.createTables)
        migrator.registerMigration("cleanup runs without action", migrate: CleanupJournal.dropAction)
        migrator.registerMigration("indexing queue", migrate: IndexingQueue.createTables)
        migrator.registerMigration("photo classes", migrate: PhotoStore.addClasses)
        for analysis in analyses {
            for (name, migration) in analysis.migrations {
                migrator.registerMigration("indexer \(analysis.name) \(name)", migrate: migration)
            }
        }
        return migrator
    }
}
