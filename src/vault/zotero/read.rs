//! The rows of Zotero's schema (Zotero 7 to 10: items, itemData/itemDataValues/fields,
//! creators, collections, itemAttachments, itemNotes, itemAnnotations, deletedItems) read into
//! plain structs. Item types and fields are looked up by name: their ids differ between
//! installs. The database is foreign input: each table read must be a table ([`db::check_tables`]),
//! each query is capped at [`MAX_ROWS`] rows (and runs under the deadline [`db::bound`] set),
//! and an item whose key is not of Zotero's shape is skipped.

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, Row};

use super::db;

pub use db::MAX_ROWS;

/// The tables read, which must be tables.
const REQUIRED: [&str; 13] = [
    "items",
    "itemTypes",
    "itemData",
    "fields",
    "itemDataValues",
    "itemCreators",
    "creators",
    "creatorTypes",
    "deletedItems",
    "itemAttachments",
    "itemNotes",
    "collections",
    "collectionItems",
];
/// Tables read when they exist (older schemas lack them).
const OPTIONAL: [&str; 2] = ["itemAnnotations", "deletedCollections"];

/// Why a database could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    NotZotero(String),
    #[error(
        "reading it took longer than {} s and was stopped; the database is damaged or not Zotero's",
        db::READ_DEADLINE.as_secs()
    )]
    Deadline,
    #[error("this database is not Zotero's: a query gave more than {MAX_ROWS} rows")]
    TooManyRows,
    #[error("{0}")]
    Sql(rusqlite::Error),
}

impl From<rusqlite::Error> for ReadError {
    fn from(e: rusqlite::Error) -> Self {
        if db::is_interrupt(&e) {
            ReadError::Deadline
        } else {
            ReadError::Sql(e)
        }
    }
}

/// Runs `sql` and hands each row, mapped by `map`, to `take` — at most [`MAX_ROWS`] of them.
fn each<T>(
    conn: &Connection,
    sql: &str,
    map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    mut take: impl FnMut(T),
) -> Result<(), ReadError> {
    let mut st = conn.prepare(sql)?;
    for (n, row) in st.query_map([], map)?.enumerate() {
        if n >= MAX_ROWS {
            return Err(ReadError::TooManyRows);
        }
        take(row?);
    }
    Ok(())
}

/// One creator of an item, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Creator {
    pub first: String,
    pub last: String,
    /// `author`, `editor`, … (Zotero's creator type).
    pub kind: String,
}

impl Creator {
    /// "First Last", or the single name of a one-field creator.
    pub fn full_name(&self) -> String {
        match (self.first.trim(), self.last.trim()) {
            ("", l) => l.to_string(),
            (f, "") => f.to_string(),
            (f, l) => format!("{f} {l}"),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct ItemRow {
    pub id: i64,
    pub library: i64,
    pub key: String,
    pub type_name: String,
    pub date_added: String,
    pub date_modified: String,
    pub fields: HashMap<String, String>,
    pub creators: Vec<Creator>,
}

#[derive(Debug, Clone)]
pub struct AttachmentRow {
    pub id: i64,
    pub parent: Option<i64>,
    pub link_mode: i64,
    pub content_type: String,
    pub path: String,
}

#[derive(Debug, Clone)]
pub struct NoteRow {
    pub id: i64,
    pub parent: Option<i64>,
    pub html: String,
    pub title: String,
}

#[derive(Debug, Clone)]
pub struct AnnotationRow {
    pub id: i64,
    pub parent: i64,
    pub kind: i64,
    pub text: Option<String>,
    pub comment: Option<String>,
    pub color: Option<String>,
    pub page_label: Option<String>,
    pub sort_index: String,
    pub position: String,
}

#[derive(Debug, Clone)]
pub struct CollectionRow {
    pub id: i64,
    pub name: String,
    pub parent: Option<i64>,
}

/// Everything read from one database.
#[derive(Debug, Default)]
pub struct Rows {
    pub items: HashMap<i64, ItemRow>,
    pub deleted: HashSet<i64>,
    pub attachments: Vec<AttachmentRow>,
    pub notes: Vec<NoteRow>,
    pub annotations: Vec<AnnotationRow>,
    pub collections: Vec<CollectionRow>,
    /// (collectionID, itemID).
    pub collection_items: Vec<(i64, i64)>,
    /// Items skipped because their key is not of Zotero's shape.
    pub bad_keys: usize,
}

fn has_table(conn: &Connection, name: &str) -> bool {
    conn.query_row(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1",
        [name],
        |_| Ok(()),
    )
    .is_ok()
}

pub fn read(conn: &Connection) -> Result<Rows, ReadError> {
    db::check_tables(conn, &REQUIRED, &OPTIONAL, "Zotero's").map_err(ReadError::NotZotero)?;
    let mut rows = Rows::default();
    each(
        conn,
        "SELECT i.itemID, i.libraryID, i.key, t.typeName, i.dateAdded, i.dateModified
         FROM items i JOIN itemTypes t ON t.itemTypeID = i.itemTypeID",
        |r| {
            Ok(ItemRow {
                id: r.get(0)?,
                library: r.get(1)?,
                key: r.get(2)?,
                type_name: r.get(3)?,
                date_added: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
                date_modified: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                ..ItemRow::default()
            })
        },
        |r| {
            if db::is_key(&r.key) {
                rows.items.insert(r.id, r);
            } else {
                tracing::warn!(
                    item = r.id,
                    key = %crate::vault::visible::visible(&r.key),
                    "skipping a Zotero item whose key is not of Zotero's shape"
                );
                rows.bad_keys += 1;
            }
        },
    )?;
    fields_and_creators(conn, &mut rows)?;
    each(
        conn,
        "SELECT itemID FROM deletedItems",
        |r| r.get::<_, i64>(0),
        |id| {
            rows.deleted.insert(id);
        },
    )?;
    each(
        conn,
        "SELECT itemID, parentItemID, linkMode, contentType, path FROM itemAttachments",
        |r| {
            Ok(AttachmentRow {
                id: r.get(0)?,
                parent: r.get(1)?,
                link_mode: r.get::<_, Option<i64>>(2)?.unwrap_or(-1),
                content_type: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                path: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
            })
        },
        |a| rows.attachments.push(a),
    )?;
    each(
        conn,
        "SELECT itemID, parentItemID, note, title FROM itemNotes",
        |r| {
            Ok(NoteRow {
                id: r.get(0)?,
                parent: r.get(1)?,
                html: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                title: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
            })
        },
        |n| rows.notes.push(n),
    )?;
    if has_table(conn, "itemAnnotations") {
        each(
            conn,
            "SELECT itemID, parentItemID, type, text, comment, color, pageLabel, sortIndex,
             position FROM itemAnnotations",
            |r| {
                Ok(AnnotationRow {
                    id: r.get(0)?,
                    parent: r.get(1)?,
                    kind: r.get(2)?,
                    text: r.get(3)?,
                    comment: r.get(4)?,
                    color: r.get(5)?,
                    page_label: r.get(6)?,
                    sort_index: r.get::<_, Option<String>>(7)?.unwrap_or_default(),
                    position: r.get::<_, Option<String>>(8)?.unwrap_or_default(),
                })
            },
            |a| rows.annotations.push(a),
        )?;
    }
    collections(conn, &mut rows)?;
    Ok(rows)
}

/// Each item's fields and creators (of the items kept).
fn fields_and_creators(conn: &Connection, rows: &mut Rows) -> Result<(), ReadError> {
    each(
        conn,
        "SELECT d.itemID, f.fieldName, v.value FROM itemData d
         JOIN fields f ON f.fieldID = d.fieldID
         JOIN itemDataValues v ON v.valueID = d.valueID",
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, rusqlite::types::Value>(2)?,
            ))
        },
        |(id, field, value)| {
            let value = match value {
                rusqlite::types::Value::Text(s) => s,
                rusqlite::types::Value::Integer(i) => i.to_string(),
                rusqlite::types::Value::Real(f) => f.to_string(),
                _ => return,
            };
            if let Some(item) = rows.items.get_mut(&id) {
                item.fields.insert(field, value);
            }
        },
    )?;
    each(
        conn,
        "SELECT ic.itemID, c.firstName, c.lastName, t.creatorType FROM itemCreators ic
         JOIN creators c ON c.creatorID = ic.creatorID
         JOIN creatorTypes t ON t.creatorTypeID = ic.creatorTypeID
         ORDER BY ic.itemID, ic.orderIndex",
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                Creator {
                    first: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                    last: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    kind: r.get(3)?,
                },
            ))
        },
        |(id, c)| {
            if let Some(item) = rows.items.get_mut(&id) {
                item.creators.push(c);
            }
        },
    )
}

/// The collections (trashed ones left out) and what is filed in them.
fn collections(conn: &Connection, rows: &mut Rows) -> Result<(), ReadError> {
    let mut deleted: HashSet<i64> = HashSet::new();
    if has_table(conn, "deletedCollections") {
        each(
            conn,
            "SELECT collectionID FROM deletedCollections",
            |r| r.get::<_, i64>(0),
            |id| {
                deleted.insert(id);
            },
        )?;
    }
    each(
        conn,
        "SELECT collectionID, collectionName, parentCollectionID FROM collections",
        |r| {
            Ok(CollectionRow {
                id: r.get(0)?,
                name: r.get(1)?,
                parent: r.get(2)?,
            })
        },
        |c| {
            if !deleted.contains(&c.id) {
                rows.collections.push(c);
            }
        },
    )?;
    each(
        conn,
        "SELECT collectionID, itemID FROM collectionItems",
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
        |ci| rows.collection_items.push(ci),
    )
}
