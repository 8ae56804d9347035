//! The rows of Zotero's schema (Zotero 7 to 10: items, itemData/itemDataValues/fields,
//! creators, collections, itemAttachments, itemNotes, itemAnnotations, deletedItems) read into
//! plain structs. Item types and fields are looked up by name: their ids differ between
//! installs.

use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

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
}

fn has_table(conn: &Connection, name: &str) -> bool {
    conn.query_row(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1",
        [name],
        |_| Ok(()),
    )
    .is_ok()
}

pub fn read(conn: &Connection) -> rusqlite::Result<Rows> {
    let mut rows = Rows::default();
    let mut st = conn.prepare(
        "SELECT i.itemID, i.libraryID, i.key, t.typeName, i.dateAdded, i.dateModified
         FROM items i JOIN itemTypes t ON t.itemTypeID = i.itemTypeID",
    )?;
    for r in st.query_map([], |r| {
        Ok(ItemRow {
            id: r.get(0)?,
            library: r.get(1)?,
            key: r.get(2)?,
            type_name: r.get(3)?,
            date_added: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
            date_modified: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
            ..ItemRow::default()
        })
    })? {
        let r = r?;
        rows.items.insert(r.id, r);
    }
    let mut st = conn.prepare(
        "SELECT d.itemID, f.fieldName, v.value FROM itemData d
         JOIN fields f ON f.fieldID = d.fieldID
         JOIN itemDataValues v ON v.valueID = d.valueID",
    )?;
    for r in st.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, rusqlite::types::Value>(2)?,
        ))
    })? {
        let (id, field, value) = r?;
        let value = match value {
            rusqlite::types::Value::Text(s) => s,
            rusqlite::types::Value::Integer(i) => i.to_string(),
            rusqlite::types::Value::Real(f) => f.to_string(),
            _ => continue,
        };
        if let Some(item) = rows.items.get_mut(&id) {
            item.fields.insert(field, value);
        }
    }
    let mut st = conn.prepare(
        "SELECT ic.itemID, c.firstName, c.lastName, t.creatorType FROM itemCreators ic
         JOIN creators c ON c.creatorID = ic.creatorID
         JOIN creatorTypes t ON t.creatorTypeID = ic.creatorTypeID
         ORDER BY ic.itemID, ic.orderIndex",
    )?;
    for r in st.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            Creator {
                first: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                last: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                kind: r.get(3)?,
            },
        ))
    })? {
        let (id, c) = r?;
        if let Some(item) = rows.items.get_mut(&id) {
            item.creators.push(c);
        }
    }
    let mut st = conn.prepare("SELECT itemID FROM deletedItems")?;
    for r in st.query_map([], |r| r.get::<_, i64>(0))? {
        rows.deleted.insert(r?);
    }
    let mut st = conn
        .prepare("SELECT itemID, parentItemID, linkMode, contentType, path FROM itemAttachments")?;
    for r in st.query_map([], |r| {
        Ok(AttachmentRow {
            id: r.get(0)?,
            parent: r.get(1)?,
            link_mode: r.get::<_, Option<i64>>(2)?.unwrap_or(-1),
            content_type: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
            path: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
        })
    })? {
        rows.attachments.push(r?);
    }
    let mut st = conn.prepare("SELECT itemID, parentItemID, note, title FROM itemNotes")?;
    for r in st.query_map([], |r| {
        Ok(NoteRow {
            id: r.get(0)?,
            parent: r.get(1)?,
            html: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            title: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
        })
    })? {
        rows.notes.push(r?);
    }
    if has_table(conn, "itemAnnotations") {
        let mut st = conn.prepare(
            "SELECT itemID, parentItemID, type, text, comment, color, pageLabel, sortIndex,
             position FROM itemAnnotations",
        )?;
        for r in st.query_map([], |r| {
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
        })? {
            rows.annotations.push(r?);
        }
    }
    let deleted_collections: HashSet<i64> = if has_table(conn, "deletedCollections") {
        let mut st = conn.prepare("SELECT collectionID FROM deletedCollections")?;
        st.query_map([], |r| r.get::<_, i64>(0))?
            .collect::<rusqlite::Result<_>>()?
    } else {
        HashSet::new()
    };
    let mut st =
        conn.prepare("SELECT collectionID, collectionName, parentCollectionID FROM collections")?;
    for r in st.query_map([], |r| {
        Ok(CollectionRow {
            id: r.get(0)?,
            name: r.get(1)?,
            parent: r.get(2)?,
        })
    })? {
        let r = r?;
        if !deleted_collections.contains(&r.id) {
            rows.collections.push(r);
        }
    }
    let mut st = conn.prepare("SELECT collectionID, itemID FROM collectionItems")?;
    for r in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
        rows.collection_items.push(r?);
    }
    Ok(rows)
}
