//! A permission request as the policy reads it: the tool the session's updates announced for
//! the call (Claude Code names it there), the call classified, the options the agent offers.

use super::*;

/// The tool names a session's `tool_call` updates announced, by call id: Claude Code's adapter
/// names the tool there, not in the permission request that follows.
#[derive(Debug)]
pub struct Announced {
    adapter: Adapter,
    names: HashMap<String, String>,
}

/// Calls remembered per turn at most (a flood of updates cannot grow the map without bound).
const ANNOUNCED_MAX: usize = 4096;

impl Announced {
    pub fn new(adapter: Adapter) -> Announced {
        Announced {
            adapter,
            names: HashMap::new(),
        }
    }

    /// Notes the tool name of a `tool_call` or `tool_call_update` (the latest one wins).
    pub fn note(&mut self, u: &SessionUpdate) {
        let (id, meta) = match u {
            SessionUpdate::ToolCall(t) => (&t.tool_call_id, t.meta.as_ref()),
            SessionUpdate::ToolCallUpdate(t) => (&t.tool_call_id, t.meta.as_ref()),
            _ => return,
        };
        if let Some(name) = adapters::announced_tool_name(self.adapter, meta) {
            if self.names.len() >= ANNOUNCED_MAX && !self.names.contains_key(id.0.as_ref()) {
                self.names.clear();
            }
            self.names.insert(id.0.to_string(), name);
        }
    }

    fn get(&self, id: &str) -> Option<&str> {
        self.names.get(id).map(String::as_str)
    }
}

/// The request in our own terms.
pub fn ask_of(r: &RequestPermissionRequest, announced: &Announced) -> PermissionAsk {
    let f = &r.tool_call.fields;
    let title = f.title.clone().unwrap_or_else(|| "a tool call".into());
    let id = r.tool_call.tool_call_id.0.to_string();
    let input = f.raw_input.clone();
    let texts: Vec<String> = f
        .content
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .filter_map(|c| match c {
            ToolCallContent::Content(c) => match &c.content {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let option_ids: Vec<String> = r
        .options
        .iter()
        .map(|o| o.option_id.0.to_string())
        .collect();
    let fields = CallFields {
        title: f.title.as_deref().unwrap_or_default(),
        raw_input: input.as_ref(),
        meta: r.tool_call.meta.as_ref(),
        texts: &texts,
        option_ids: &option_ids,
        announced: announced.get(&id),
    };
    PermissionAsk {
        tool: classify(announced.adapter, f.kind, &fields),
        tool_call_id: id,
        title,
        kind: f.kind.map(kind_name),
        input,
        detail: (!texts.is_empty()).then(|| texts.join("\n")),
        locations: f
            .locations
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|l| l.path.clone())
            .collect(),
        options: r
            .options
            .iter()
            .map(|o| PermissionChoice {
                id: o.option_id.0.to_string(),
                name: o.name.clone(),
                kind: match o.kind {
                    PermissionOptionKind::AllowOnce => PermissionKind::AllowOnce,
                    PermissionOptionKind::AllowAlways => PermissionKind::AllowAlways,
                    PermissionOptionKind::RejectAlways => PermissionKind::RejectAlways,
                    _ => PermissionKind::RejectOnce,
                },
            })
            .collect(),
    }
}
