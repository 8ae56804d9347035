//! How the built-in agent answers: the selection and the current page anchor the question;
//! it searches the grant for the question's key words (expanded with the selection's), reads
//! the anchor page and the best cards' pages through `context_read`, and quotes the 2–4
//! sentences [`choose::choose`] ranks highest (the selection's own sentences that match the
//! question first), each with its citation URI. Without tools (a
//! prompt-only turn) the same ranking runs over the evidence in the prompt. A handoff request
//! is answered from the session's own record, never searched for.

use crate::context::server::ContextTool;
use std::ops::ControlFlow;

use agent_client_protocol::Error as AcpError;
use agent_client_protocol::v1::schema::{StopReason, ToolKind};
use serde_json::{Value, json};

use super::answer::{Origin, Prompt, quote_line};
use super::candidate::{Candidate, Kind, Pick};
use super::tools::{call_tool, card_place};
use super::{Fault, McpClient, Reply};
use super::{choose, rank, text, value};
use crate::vault::uri::{self, Target};

/// Pages read for one answer at most (besides the anchor page).
const MAX_READS: usize = 5;

/// The place of a citation URI: (path, page) of a paper page.
fn page_of(u: &str) -> Option<(String, u32)> {
    match uri::parse(u)? {
        Target::Vault {
            path,
            page: Some(p),
            ..
        } => Some((path, p)),
        _ => None,
    }
}

/// What an answer has read so far: the places (so none is read twice) and the candidates
/// their text became.
struct Reading {
    places: Vec<String>,
    cands: Vec<Candidate>,
    /// The lead-in was said.
    said: bool,
}

impl Reading {
    /// Reads one place (a page, a file's lines, a whole file) unless it was read already, and
    /// keeps its text as a candidate. Whether it could be read.
    async fn read(
        &mut self,
        reply: &mut Reply<'_>,
        client: &McpClient,
        place: String,
        args: Value,
        how: Candidate,
    ) -> Result<bool, AcpError> {
        if self.places.contains(&place) {
            return Ok(true);
        }
        self.places.push(place.clone());
        let (cx, session) = (reply.cx, reply.session);
        let read = call_tool(
            cx,
            session,
            client,
            ContextTool::ContextRead,
            format!("context_read {place}"),
            ToolKind::Read,
            args,
        )
        .await?;
        let Ok(v) = read else {
            return Ok(false);
        };
        let (Some(text), Some(u)) = (
            v.get("text").and_then(Value::as_str),
            v.get("citationUri").and_then(Value::as_str),
        ) else {
            return Ok(false);
        };
        self.lead_in(reply).await?;
        self.cands.push(Candidate {
            uri: u.to_string(),
            title: v
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            text: text.to_string(),
            ..how
        });
        Ok(true)
    }

    /// Reads page `page` of the paper at `path`.
    async fn page(
        &mut self,
        reply: &mut Reply<'_>,
        client: &McpClient,
        path: &str,
        page: u32,
        how: Candidate,
    ) -> Result<bool, AcpError> {
        // Without the running heads and page numbers: they are never evidence.
        let args = json!({"path": path, "mode": "page", "page": page, "furniture": false});
        self.read(reply, client, format!("{path} p. {page}"), args, how)
            .await
    }

    /// Searches the grant for `query` and reads the places of the best cards (at most
    /// [`MAX_READS`], none twice). How many cards the search found, or the end of the turn:
    /// the search failed before anything was read, or the turn was cancelled.
    async fn search(
        &mut self,
        reply: &mut Reply<'_>,
        client: &McpClient,
        query: &str,
    ) -> Result<ControlFlow<StopReason, usize>, AcpError> {
        let (cx, session) = (reply.cx, reply.session);
        let found_cards = call_tool(
            cx,
            session,
            client,
            ContextTool::ContextSearch,
            format!("context_search {query:?}"),
            ToolKind::Search,
            json!({"query": query}),
        )
        .await?;
        let cards = match found_cards {
            Ok(v) => v
                .get("cards")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            Err(msg) => {
                if self.cands.is_empty() {
                    reply.say(&format!("I could not search the granted sources: {msg}"))?;
                    return Ok(ControlFlow::Break(StopReason::EndTurn));
                }
                Vec::new()
            }
        };
        let searched = cards.len();
        let mut reads = 0;
        for (rank, card) in cards.iter().enumerate() {
            if reads >= MAX_READS {
                break;
            }
            if reply.session.is_cancelled() {
                return Ok(ControlFlow::Break(StopReason::Cancelled));
            }
            let Some(path) = card.get("path").and_then(Value::as_str) else {
                continue;
            };
            let place = format!("{path}{}", card_place(card));
            if self.places.contains(&place) {
                continue;
            }
            reads += 1;
            let page = card.get("page").and_then(Value::as_u64);
            let args = if let Some(p) = page {
                json!({"path": path, "mode": "page", "page": p, "furniture": false})
            } else if let Some(l) = card.get("lines").and_then(Value::as_array) {
                json!({"path": path, "mode": "region", "start": l.first(), "end": l.get(1)})
            } else {
                json!({"path": path, "mode": "full"})
            };
            self.read(
                reply,
                client,
                place,
                args,
                found(Some(rank), false, page == Some(1)),
            )
            .await?;
        }
        Ok(ControlFlow::Continue(searched))
    }

    /// The lead-in of an answer, said once the first page is read (where the test hooks fire).
    async fn lead_in(&mut self, reply: &mut Reply<'_>) -> Result<(), AcpError> {
        if self.said {
            return Ok(());
        }
        self.said = true;
        reply.say("From the granted sources:\n\n")?;
        if reply.fault == Fault::Crash {
            // Test hook: die in the middle of a turn, after output was streamed.
            std::thread::sleep(std::time::Duration::from_millis(200));
            std::process::exit(70);
        }
        if reply.fault == Fault::Hang {
            std::future::pending::<()>().await;
        }
        Ok(())
    }
}

/// How a candidate was found (its text and URI are filled in when it is read).
fn found(rank: Option<usize>, anchor: bool, first_page: bool) -> Candidate {
    Candidate {
        uri: String::new(),
        title: String::new(),
        text: String::new(),
        rank,
        anchor,
        first_page,
    }
}

fn quoted_words(words: &[String]) -> String {
    words
        .iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The line an answer leads with: the value or name asked for and the quote that holds it
/// ("The value: **4406 individuals** (first quote below).").
fn lead_line(q: &rank::Question, picks: &[Pick]) -> Option<String> {
    let quotes: Vec<&str> = picks.iter().map(|p| p.text.as_str()).collect();
    let (i, v) = value::lead_of(q, &quotes)?;
    let what = if q.kind == Kind::Number {
        "The value"
    } else {
        "The name"
    };
    let which = match i {
        0 => "first quote".to_string(),
        _ => format!("quote {}", i + 1),
    };
    Some(format!("{what}: **{v}** ({which} below).\n\n"))
}

/// The quotes of an answer, led by the value or name asked for when a quote holds one
/// ("**4406 individuals**", then the sentences).
fn say_picks(reply: &mut Reply<'_>, q: &rank::Question, picks: &[Pick]) -> Result<(), AcpError> {
    if let Some(line) = lead_line(q, picks) {
        reply.say(&line)?;
    }
    for p in picks {
        reply.say(&quote_line(&p.text, &p.uri))?;
    }
    Ok(())
}

/// The extractive answer with the context tools.
pub(super) async fn answer_with_tools(
    reply: &mut Reply<'_>,
    client: &McpClient,
    prompt: &Prompt,
) -> Result<StopReason, AcpError> {
    let selection = prompt.selection();
    let q = rank::read_question(&prompt.question, selection.map(|s| s.text.as_str()));
    let anchor = prompt.anchor_uri().and_then(page_of);
    let anchor_words: Vec<String> = match selection {
        Some(s) if q.words.is_empty() => rank::keywords_of_text(&s.text, 6),
        Some(s) => rank::keywords_of_text(&s.text, 3),
        None => Vec::new(),
    };
    if q.words.is_empty() && anchor.is_none() && q.kind == Kind::Other {
        reply.say(
            "Your question has no words I can search for; ask about a topic, a method or a result, \
             or select a passage and ask about it.",
        )?;
        return Ok(StopReason::EndTurn);
    }
    let mut r = Reading {
        places: Vec::new(),
        cands: Vec::new(),
        said: false,
    };

    // The anchor page: where the user is reading or selected.
    if let Some((path, page)) = &anchor {
        r.page(reply, client, path, *page, found(None, true, *page == 1))
            .await?;
    }

    // What a paper is about is said at its start: for a contribution question without words of
    // its own, the first pages of the paper read (or the one granted paper) are the candidates.
    let granted_papers: Vec<String> = prompt
        .sources
        .iter()
        .filter(|(k, _)| k == "paper")
        .map(|(_, p)| p.clone())
        .collect();
    let the_paper: Option<String> = anchor
        .as_ref()
        .map(|(p, _)| p.clone())
        .or_else(|| (granted_papers.len() == 1).then(|| granted_papers[0].clone()));
    let opening_pages = q.kind == Kind::Contribution && q.words.is_empty() && selection.is_none();
    if opening_pages && let Some(path) = &the_paper {
        for page in [1u32, 2] {
            r.page(reply, client, path, page, found(None, false, page == 1))
                .await?;
        }
    }

    // The search: unless the question is about the anchor page (or paper) alone.
    let about_page_only = anchor.is_some() && (q.this_page || q.deictic) && selection.is_none();
    let about_paper_only = opening_pages && the_paper.is_some();
    let query = q.query(&anchor_words);
    let mut searched = 0;
    if !about_page_only && !about_paper_only && !query.is_empty() {
        match r.search(reply, client, &query).await? {
            ControlFlow::Continue(cards) => searched = cards,
            ControlFlow::Break(stop) => return Ok(stop),
        }
    }

    // Nothing found for data or limitations in the one paper asked about: its pages, in order,
    // for the cues to rank.
    if r.cands.iter().all(|c| c.anchor)
        && matches!(
            q.kind,
            Kind::Dataset | Kind::Limitation | Kind::Contribution
        )
        && let Some(path) = &the_paper
    {
        for page in 1..=MAX_READS as u32 {
            if !r
                .page(reply, client, path, page, found(None, false, page == 1))
                .await?
            {
                break;
            }
        }
    }
    let picks = choose::choose(&q, &r.cands, selection.map(|s| s.text.as_str()));
    if picks.is_empty() {
        let about = if q.words.is_empty() {
            "an answer to this".to_string()
        } else {
            format!("anything about {}", quoted_words(&q.words))
        };
        let read = r.cands.len();
        reply.say(&format!(
            "I could not find {about} in the granted sources (the search found {searched} cards; I read {read} \
             pages or passages). Mention other papers or folders to widen the search, or ask with other words."
        ))?;
        return Ok(StopReason::EndTurn);
    }
    r.lead_in(reply).await?;
    say_picks(reply, &q, &picks)?;
    reply.say("(Quoted verbatim from the pages I read; I am an offline extractive agent.)")?;
    Ok(StopReason::EndTurn)
}

/// The answer from the prompt's evidence alone (a prompt-only turn).
pub(super) fn answer_from_prompt(
    reply: &mut Reply<'_>,
    prompt: &Prompt,
) -> Result<StopReason, AcpError> {
    let selection = prompt.selection();
    let q = rank::read_question(&prompt.question, selection.map(|s| s.text.as_str()));
    let cands: Vec<Candidate> = prompt
        .evidence
        .iter()
        // A folder's listing names papers; it says nothing about them.
        .filter(|e| !e.text.is_empty() && !e.uri.ends_with('/'))
        .map(|e| Candidate {
            uri: e.uri.clone(),
            title: e.title.clone(),
            text: e.text.clone(),
            rank: None,
            anchor: e.origin == Origin::Selection,
            first_page: e.origin == Origin::Mention,
        })
        .collect();
    if cands.is_empty() {
        reply.say(
            "This turn gives me no evidence to quote, and I cannot read further: no vault tools are available \
             in this turn (prompt only). Select text in a paper or mention a source from a local agent to give \
             me something to read.",
        )?;
        return Ok(StopReason::EndTurn);
    }
    let mut picks = choose::choose(&q, &cands, selection.map(|s| s.text.as_str()));
    if picks.is_empty()
        && let Some(s) = selection
    {
        // A selection is the user's own pick: quote its start even without a key word.
        if let Some(first) = text::sentences(&s.text)
            .into_iter()
            .find(|t| t.chars().count() >= 20)
        {
            picks.push(Pick {
                text: text::cut(&first),
                uri: s.uri.clone(),
                score: 0.0,
            });
        }
    }
    if picks.is_empty() {
        reply.say(&format!(
            "I could not find anything about {} in the evidence of this prompt, and I cannot read further: no \
             vault tools are available in this turn (prompt only).",
            quoted_words(&q.words)
        ))?;
        return Ok(StopReason::EndTurn);
    }
    reply.say("From the evidence in the prompt:\n\n")?;
    say_picks(reply, &q, &picks)?;
    reply.say(
        "I cannot read further in this turn: no vault tools are available (prompt only), so this is all the \
         evidence I have.",
    )?;
    Ok(StopReason::EndTurn)
}
