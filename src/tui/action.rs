//! The action registry: one enum whose serde names are the keymap vocabulary and whose
//! descriptions are the help overlay's text (helix's command registry).

use serde::{Deserialize, Serialize};

macro_rules! actions {
    ($($variant:ident => $name:literal, $help:literal;)*) => {
        /// Everything a key can do. The snake_case name is what keymap files use.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Action { $($variant,)* }

        impl Action {
            pub const ALL: &'static [Action] = &[$(Action::$variant,)*];

            pub fn name(self) -> &'static str {
                match self { $(Action::$variant => $name,)* }
            }

            pub fn description(self) -> &'static str {
                match self { $(Action::$variant => $help,)* }
            }

            /// A few words for the which-key strip: the description's first clause
            /// ("Search every paper and note"), never the keymap name.
            pub fn label(self) -> &'static str {
                let d = self.description();
                let end = [" (", "; ", ": ", ", "]
                    .iter()
                    .filter_map(|sep| d.find(sep))
                    .min()
                    .unwrap_or(d.len());
                &d[..end]
            }

            pub fn from_name(name: &str) -> Option<Action> {
                match name { $($name => Some(Action::$variant),)* _ => None }
            }
        }
    };
}

actions! {
    Quit => "quit", "Quit agentero";
    Interrupt => "interrupt", "Cancel the running turn; twice quits";
    Help => "help", "Show this help";
    Suspend => "suspend", "Suspend to the shell (fg resumes)";
    Cancel => "cancel", "Close the overlay, leave the mode, or clear the pending keys";
    FocusNext => "focus_next", "Focus the next pane";
    FocusPrev => "focus_prev", "Focus the previous pane";
    FocusVault => "focus_vault", "Focus the vault browser";
    FocusPaper => "focus_paper", "Focus the paper pane";
    FocusChat => "focus_chat", "Focus the chat pane";
    MoveDown => "move_down", "Down one line or item";
    MoveUp => "move_up", "Up one line or item";
    MoveLeft => "move_left", "Cursor left one character";
    MoveRight => "move_right", "Cursor right one character";
    HalfPageDown => "half_page_down", "Down half a screen";
    HalfPageUp => "half_page_up", "Up half a screen";
    NextPage => "next_page", "Next page of the paper";
    PrevPage => "prev_page", "Previous page of the paper";
    GotoTop => "goto_top", "First page / first item";
    GotoPage => "goto_page", "Page [count] (no count: last page / last item)";
    Open => "open", "Open the selected entry, source or outline item";
    Filter => "filter", "Filter the vault browser, or find threads by @cited paper or page and words";
    TogglePaths => "toggle_paths", "Show paths instead of titles in the browser";
    CycleSort => "cycle_sort", "Sort papers by folder, title, year, recently opened or date added";
    Rescan => "rescan", "Re-scan the vault for changes";
    Search => "search", "Search in the paper";
    VaultSearch => "vault_search", "Search every paper and note (in:DIR/ narrows)";
    SearchNext => "search_next", "Next search match";
    SearchPrev => "search_prev", "Previous search match";
    Outline => "outline", "Section outline of the paper";
    Metadata => "metadata", "Metadata of the paper";
    Undo => "undo", "Put back the highlight deleted last";
    Links => "links", "Links and numbered citations on this page (enter follows; ctrl-o comes back)";
    OpenCited => "open_cited", "Links list: open the cited paper, when the library has it";
    DarkPages => "dark_pages", "Page images dark (light and dark swapped, colours kept) or as printed";
    ToggleImage => "toggle_image", "Show the page as an image (I again: the text)";
    Maximise => "maximise", "Maximise the paper pane (again: the other panes back)";
    FitWidth => "fit_width", "Image view: fit the page's width to the pane";
    FitPage => "fit_page", "Image view: the whole page in the pane";
    ZoomIn => "zoom_in", "Image view: zoom in around the centre";
    ZoomOut => "zoom_out", "Image view: zoom out around the centre";
    ScrollLeft => "scroll_left", "Text view: scroll long code lines left";
    ScrollRight => "scroll_right", "Text view: scroll long code lines right";
    OpenViewer => "open_viewer", "Open the paper at this page in your PDF viewer";
    Yank => "yank", "Copy the selection to the clipboard (OSC 52)";
    YankCitation => "yank_citation", "Copy this page's citation (papers/x/paper.pdf#page=3)";
    YankBibtex => "yank_bibtex", "Copy the paper's BibTeX entry";
    SetMark => "set_mark", "Set a mark (then a letter)";
    JumpMark => "jump_mark", "Jump to a mark (then a letter)";
    JumpBack => "jump_back", "Back in the jump list";
    JumpForward => "jump_forward", "Forward in the jump list";
    VisualChar => "visual_char", "Select characters (visual mode)";
    VisualLine => "visual_line", "Select lines (visual mode)";
    Highlight => "highlight", "Highlight the selection, with an optional comment";
    Annotations => "annotations", "The paper's highlights and annotations (enter jumps, d deletes, e exports)";
    Delete => "delete", "Delete the selected highlight";
    ExportMarkdown => "export_markdown", "Write the paper's highlights as markdown (in .agentero/exports/)";
    ExportBibtex => "export_bibtex", "Write the BibTeX of the papers the thread cited (in .agentero/exports/)";
    ExportCsljson => "export_csljson", "Write the CSL-JSON of the papers the thread cited (in .agentero/exports/)";
    UseSelection => "use_selection", "Use the selection as the next question's context";
    QuickChat => "quick_chat", "Quick Chat about the selection or page, or reopen it";
    ReopenQuick => "reopen_quick", "Reopen the Quick Chat closed last";
    Compose => "compose", "Write a message to the agent";
    Send => "send", "Send the message";
    Newline => "newline", "New line in the message";
    DeleteToLineStart => "delete_to_line_start", "Delete from the cursor to the start of the line";
    RemoveChip => "remove_chip", "Remove the last context chip; while a turn runs, cancel the turn instead";
    NewThread => "new_thread", "Start a new chat thread";
    Threads => "threads", "List chat threads";
    Recent => "recent", "Recently opened documents (reopen where you left off)";
    NextThread => "next_thread", "Next chat thread";
    PrevThread => "prev_thread", "Previous chat thread";
    ToggleExpand => "toggle_expand", "Expand or fold a thought or tool call";
    CancelTurn => "cancel_turn", "Cancel the running turn (in the input, the key that removes a chip does too)";
    Handoff => "handoff", "Hand the thread off to a fresh session (writes HANDOFF.md)";
    ToggleVaultMcp => "toggle_vault_mcp", "Start or stop the vault MCP server (agentero serve)";
    OpenExternal => "open_external", "Open the selected external source with $BROWSER";
    Promote => "promote", "Turn the Quick Chat into a chat thread";
    MentionNext => "mention_next", "Next completion";
    MentionPrev => "mention_prev", "Previous completion";
    MentionAccept => "mention_accept", "Accept the completion as a chip";
    CheckCitations => "check_citations", "Check the selected manuscript's citations against the cited pages (a checklist)";
    Checklist => "checklist", "The citation checklist beside the paper (show / hide)";
    NextProblem => "next_problem", "Checklist: open the next citation that needs a look";
    PrevProblem => "prev_problem", "Checklist: open the previous citation that needs a look";
    Recheck => "recheck", "Checklist: check the manuscript again now (a save does it too)";
    AllowOnce => "allow_once", "Allow this once";
    AllowAlways => "allow_always", "Always allow";
    RejectOnce => "reject_once", "Reject this once";
    RejectAlways => "reject_always", "Always reject";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_names_are_the_registry_names() {
        for a in Action::ALL {
            let json = serde_json::to_string(a).unwrap();
            assert_eq!(json, format!("\"{}\"", a.name()));
            assert_eq!(Action::from_name(a.name()), Some(*a));
        }
    }
}
