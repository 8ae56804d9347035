//! Building a Zotero data directory the way Zotero does, from its own schema files (shared by
//! `tests/zotero.rs` and `benches/zotero.rs`). The schema files are Zotero's (AGPL-3.0) and
//! Better BibTeX's (MIT): they are read at run time from `$AGENTERO_ZOTERO_SCHEMA`, by default
//! `../shared/zotero-schema/` beside the clone, never copied into the repository.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use rusqlite::{Connection, params};
use serde_json::Value;

pub fn schema_dir() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("AGENTERO_ZOTERO_SCHEMA").map(PathBuf::from),
        Some(manifest.join("../shared/zotero-schema")),
        // A worktree one level further down (…/wt/<name>/).
        Some(manifest.join("../../shared/zotero-schema")),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("userdata.sql").is_file());
    if found.is_none() {
        let why = "Zotero's schema files are not there (set AGENTERO_ZOTERO_SCHEMA to a folder \
                   with system.sql, userdata.sql, triggers.sql, global-schema.json and \
                   better-bibtex-citation-key.sql)";
        crate::common::skip::missing(crate::common::skip::Peer::ZoteroSchema, why);
    }
    found
}

/// What Zotero's `_initializeSchema` does, on `conn`.
pub fn initialize(conn: &Connection, schema: &Path) {
    for f in ["system.sql", "userdata.sql", "triggers.sql"] {
        let sql = std::fs::read_to_string(schema.join(f)).unwrap();
        conn.execute_batch(&sql)
            .unwrap_or_else(|e| panic!("{f}: {e}"));
    }
    let global: Value =
        serde_json::from_slice(&std::fs::read(schema.join("global-schema.json")).unwrap()).unwrap();
    let mut fields: Vec<String> = Vec::new();
    let mut creator_types: Vec<String> = Vec::new();
    for t in global["itemTypes"].as_array().unwrap() {
        for f in t["fields"].as_array().unwrap() {
            for name in [f["field"].as_str(), f["baseField"].as_str()]
                .into_iter()
                .flatten()
            {
                if !fields.iter().any(|x| x == name) {
                    fields.push(name.to_string());
                }
            }
        }
        for c in t["creatorTypes"].as_array().unwrap() {
            let name = c["creatorType"].as_str().unwrap();
            if !creator_types.iter().any(|x| x == name) {
                creator_types.push(name.to_string());
            }
        }
    }
    let field_id = |name: &str| fields.iter().position(|x| x == name).unwrap() as i64 + 1;
    for (i, f) in fields.iter().enumerate() {
        conn.execute(
            "INSERT INTO fields (fieldID, fieldName, fieldFormatID) VALUES (?1, ?2, NULL)",
            params![i as i64 + 1, f],
        )
        .unwrap();
    }
    for (i, c) in creator_types.iter().enumerate() {
        conn.execute(
            "INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (?1, ?2)",
            params![i as i64 + 1, c],
        )
        .unwrap();
    }
    for (i, t) in global["itemTypes"].as_array().unwrap().iter().enumerate() {
        let id = i as i64 + 1;
        conn.execute(
            "INSERT INTO itemTypes (itemTypeID, typeName, templateItemTypeID, display) VALUES (?1, ?2, NULL, 1)",
            params![id, t["itemType"].as_str().unwrap()],
        )
        .unwrap();
        for (n, f) in t["fields"].as_array().unwrap().iter().enumerate() {
            let fid = field_id(f["field"].as_str().unwrap());
            conn.execute(
                "INSERT INTO itemTypeFields (itemTypeID, fieldID, hide, orderIndex) VALUES (?1, ?2, NULL, ?3)",
                params![id, fid, n as i64],
            )
            .unwrap();
            if let Some(base) = f["baseField"].as_str() {
                conn.execute(
                    "INSERT INTO baseFieldMappings (itemTypeID, baseFieldID, fieldID) VALUES (?1, ?2, ?3)",
                    params![id, field_id(base), fid],
                )
                .unwrap();
            }
        }
        for c in t["creatorTypes"].as_array().unwrap() {
            let cid = creator_types
                .iter()
                .position(|x| x == c["creatorType"].as_str().unwrap())
                .unwrap() as i64
                + 1;
            conn.execute(
                "INSERT INTO itemTypeCreatorTypes (itemTypeID, creatorTypeID, primaryField) VALUES (?1, ?2, ?3)",
                params![id, cid, c["primary"].as_bool().unwrap_or(false) as i64],
            )
            .unwrap();
        }
    }
    // `Zotero.Schema._repopulateCombined`: the *Combined tables (global + custom types).
    conn.execute_batch(
        "INSERT INTO itemTypesCombined SELECT itemTypeID, typeName, display, 0 FROM itemTypes;
         INSERT INTO fieldsCombined SELECT fieldID, fieldName, NULL, fieldFormatID, 0 FROM fields;
         INSERT INTO itemTypeFieldsCombined SELECT itemTypeID, fieldID, hide, orderIndex FROM itemTypeFields;
         INSERT INTO baseFieldMappingsCombined SELECT itemTypeID, baseFieldID, fieldID FROM baseFieldMappings;",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO version (schema, version) VALUES ('userdata', 129), ('system', 32), ('triggers', 18), ('globalSchema', ?1)",
        [global["version"].as_i64().unwrap()],
    )
    .unwrap();
}

/// A running Zotero's connection and the items it writes.
pub struct Zotero {
    pub conn: Connection,
}

impl Zotero {
    pub fn id(&self, sql: &str, name: &str) -> i64 {
        self.conn
            .query_row(sql, [name], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    }
    pub fn type_id(&self, name: &str) -> i64 {
        self.id("SELECT itemTypeID FROM itemTypes WHERE typeName = ?1", name)
    }
    pub fn field_id(&self, name: &str) -> i64 {
        self.id("SELECT fieldID FROM fields WHERE fieldName = ?1", name)
    }
    pub fn item(&self, type_name: &str, key: &str) -> i64 {
        self.conn
            .execute(
                "INSERT INTO items (itemTypeID, libraryID, key, dateAdded) VALUES (?1, 1, ?2, '2026-11-30 10:00:00')",
                params![self.type_id(type_name), key],
            )
            .unwrap();
        self.conn.last_insert_rowid()
    }
    pub fn set(&self, item: i64, field: &str, value: &str) {
        self.conn
            .execute(
                "INSERT OR IGNORE INTO itemDataValues (value) VALUES (?1)",
                [value],
            )
            .unwrap();
        let vid: i64 = self
            .conn
            .query_row(
                "SELECT valueID FROM itemDataValues WHERE value = ?1",
                [value],
                |r| r.get(0),
            )
            .unwrap();
        self.conn
            .execute(
                "INSERT OR REPLACE INTO itemData (itemID, fieldID, valueID) VALUES (?1, ?2, ?3)",
                params![item, self.field_id(field), vid],
            )
            .unwrap();
    }
    pub fn creator(&self, item: i64, first: &str, last: &str, order: i64) {
        self.creator_as(item, first, last, order, "author");
    }
    /// A creator of another type (`editor`, `contributor`, …).
    pub fn creator_as(&self, item: i64, first: &str, last: &str, order: i64, kind: &str) {
        self.conn
            .execute(
                "INSERT INTO creators (firstName, lastName, fieldMode) VALUES (?1, ?2, 0)",
                params![first, last],
            )
            .unwrap();
        let cid = self.conn.last_insert_rowid();
        let author = self.id(
            "SELECT creatorTypeID FROM creatorTypes WHERE creatorType = ?1",
            kind,
        );
        self.conn
            .execute(
                "INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex) VALUES (?1, ?2, ?3, ?4)",
                params![item, cid, author, order],
            )
            .unwrap();
    }
    /// A PDF attachment (`path` as Zotero stores it: `storage:x.pdf`, `attachments:…`, or
    /// absolute) of `parent`.
    pub fn attachment(&self, parent: Option<i64>, key: &str, link_mode: i64, path: &str) -> i64 {
        let id = self.item("attachment", key);
        self.conn
            .execute(
                "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?1, ?2, ?3, 'application/pdf', ?4)",
                params![id, parent, link_mode, path],
            )
            .unwrap();
        id
    }
    pub fn collection(&self, name: &str, parent: Option<i64>, key: &str) -> i64 {
        self.conn
            .execute(
                "INSERT INTO collections (collectionName, parentCollectionID, libraryID, key) VALUES (?1, ?2, 1, ?3)",
                params![name, parent, key],
            )
            .unwrap();
        self.conn.last_insert_rowid()
    }
    pub fn file_in(&self, collection: i64, item: i64) {
        self.conn
            .execute(
                "INSERT INTO collectionItems (collectionID, itemID, orderIndex) VALUES (?1, ?2, 0)",
                params![collection, item],
            )
            .unwrap();
    }
    #[allow(clippy::too_many_arguments)]
    pub fn annotation(
        &self,
        attachment: i64,
        key: &str,
        kind: i64,
        text: Option<&str>,
        comment: Option<&str>,
        label: &str,
        position: &str,
    ) {
        let id = self.item("annotation", key);
        // As Zotero sorts them: page index, then the offset in the page's text, then top.
        let page: Value = serde_json::from_str(position).unwrap();
        let sort = format!("{:05}|{id:06}|00000", page["pageIndex"].as_u64().unwrap());
        self.conn
            .execute(
                "INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, color, pageLabel, sortIndex, position, isExternal) VALUES (?1, ?2, ?3, ?4, ?5, '#ffd400', ?6, ?7, ?8, 0)",
                params![id, attachment, kind, text, comment, label, sort, position],
            )
            .unwrap();
    }
    pub fn note(&self, parent: Option<i64>, key: &str, html: &str, title: &str) {
        let id = self.item("note", key);
        self.conn
            .execute(
                "INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (?1, ?2, ?3, ?4)",
                params![id, parent, html, title],
            )
            .unwrap();
    }
}

/// Writes `bytes` at `path`, making its folder.
pub fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A new `zotero.sqlite` in `dir` held as Zotero 10 holds it: exclusive locking, WAL, the log
/// checkpointed only at idle (never here), the schema checkpointed into the main file.
pub fn create(dir: &Path, schema: &Path) -> Zotero {
    let conn = Connection::open(dir.join("zotero.sqlite")).unwrap();
    conn.pragma_update(None, "locking_mode", "EXCLUSIVE")
        .unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    initialize(&conn, schema);
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    Zotero { conn }
}

/// The `n`th key of Zotero's shape: 8 characters of its alphabet (no 0, 1 or O).
pub fn zkey(n: u64) -> String {
    const ALPHABET: &[u8] = b"23456789ABCDEFGHIJKLMNPQRSTUVWXYZ";
    let mut n = n;
    let mut key = [b'2'; 8];
    for slot in key.iter_mut().rev() {
        *slot = ALPHABET[(n % 33) as usize];
        n /= 33;
    }
    String::from_utf8(key.to_vec()).unwrap()
}
