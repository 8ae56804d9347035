//! How the built-in agent answers: the selection and the current page anchor the question;
//! it searches the grant for the question's key words (expanded with the selection's), reads
//! the anchor page and the best cards' pages through `context_read`, and quotes the 2–4
//! sentences [`choose::choose`] ranks highest (the selection's own sentences that match the
//! question first), each with its citation URI. Without tools (a
//! prompt-only turn) the same ranking runs over the evidence in the prompt. A handoff request
//! is answered from the session's own record, never searched for.

use std::ops::ControlFlow;

use agent_client_protocol::Error as AcpError;
use agent_client_protocol::v1::schema::{StopReason, ToolKind};
use serde_json::{Value, json};

use super::answer::{Origin, Prompt, quote_line};
use super::candidate::{Candidate, Kind, Pick, Question};
use super::papers::{self, Hit};
use super::tools::{call_tool, card_place};
use super::{Fault, McpClient, Reply};
use super::{choose, rank, text};
use crate::vault::uri::{self, Target};

/// Pages read for one answer at most (besides the anchor page).
const MAX_READS: usize = 5;

/// Papers searched on their own, for a question asked of many papers.
const PAPERS: usize = 3;

/// Pages of the best paper read first, for a question asked of many papers.
const BEST_PAPER_READS: usize = 3;

/// Pages read in all for a question asked of many papers: the best paper's, then the scope's
/// best cards.
const PAPER_SCOPE_READS: usize = MAX_READS + 1;

/// A card as the paper ranking reads it.
fn hit(card: &Value, rank: usize, scoped: bool) -> Option<Hit> {
    let s = |k: &str| card.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    Some(Hit {
        path: card.get("path").and_then(Value::as_str)?.to_string(),
        title: s("title"),
        page: card
            .get("page")
            .and_then(Value::as_u64)
            .and_then(|p| u32::try_from(p).ok()),
        excerpt: s("excerpt"),
        rank,
        scoped,
    })
}

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
            "context_read",
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

    /// Searches the grant (or the granted `paths` in it) for `query`: the cards, or the end of
    /// the turn when the search failed before anything was read (a failed search after that, or
    /// a restricted one, finds nothing).
    async fn cards(
        &mut self,
        reply: &mut Reply<'_>,
        client: &McpClient,
        query: &str,
        paths: Option<&[String]>,
    ) -> Result<ControlFlow<StopReason, Vec<Value>>, AcpError> {
        let (cx, session) = (reply.cx, reply.session);
        let (args, title) = match paths {
            Some(p) => (
                json!({"query": query, "paths": p}),
                format!("context_search {query:?} in {}", p.join(", ")),
            ),
            None => (json!({"query": query}), format!("context_search {query:?}")),
        };
        let found_cards =
            call_tool(cx, session, client, "context_search", title, ToolKind::Search, args).await?;
        Ok(ControlFlow::Continue(match found_cards {
            Ok(v) => v
                .get("cards")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            Err(msg) => {
                if self.cands.is_empty() && paths.is_none() {
                    reply.say(&format!("I could not search the granted sources: {msg}"))?;
                    return Ok(ControlFlow::Break(StopReason::EndTurn));
                }
                Vec::new()
            }
        }))
    }

    /// Reads the place of a card unless it was read already. Whether it was read now.
    async fn read_card(
        &mut self,
        reply: &mut Reply<'_>,
        client: &McpClient,
        card: &Value,
        rank: usize,
        paper: Option<f64>,
    ) -> Result<bool, AcpError> {
        let Some(path) = card.get("path").and_then(Value::as_str) else {
            return Ok(false);
        };
        let place = format!("{path}{}", card_place(card));
        if self.places.contains(&place) {
            return Ok(false);
        }
        let page = card.get("page").and_then(Value::as_u64);
        let args = if let Some(p) = page {
            json!({"path": path, "mode": "page", "page": p, "furniture": false})
        } else if let Some(l) = card.get("lines").and_then(Value::as_array) {
            json!({"path": path, "mode": "region", "start": l.first(), "end": l.get(1)})
        } else {
            json!({"path": path, "mode": "full"})
        };
        let how = Candidate {
            paper,
            ..found(Some(rank), false, page == Some(1))
        };
        self.read(reply, client, place, args, how).await?;
        Ok(true)
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
        let cards = match self.cards(reply, client, query, None).await? {
            ControlFlow::Continue(c) => c,
            ControlFlow::Break(stop) => return Ok(ControlFlow::Break(stop)),
        };
        let mut reads = 0;
        for (rank, card) in cards.iter().enumerate() {
            if reads >= MAX_READS {
                break;
            }
            if reply.session.is_cancelled() {
                return Ok(ControlFlow::Break(StopReason::Cancelled));
            }
            if self.read_card(reply, client, card, rank, None).await? {
                reads += 1;
            }
        }
        Ok(ControlFlow::Continue(cards.len()))
    }

    /// The search of a question asked of many papers: papers first, then pages. The scope's
    /// search ranks papers ([`papers::rank`]); each of the best [`PAPERS`] is searched on its own
    /// (its best pages, and how much of it matches), the papers are ranked again with those
    /// cards, and the best paper's best pages are read, then the scope's best cards; every
    /// page's sentences are weighed by how its paper scored. A card whose passage is
    /// bibliography entries is never read. How many cards the scope's
    /// search found, or the end of the turn.
    async fn search_papers(
        &mut self,
        reply: &mut Reply<'_>,
        client: &McpClient,
        q: &Question,
        query: &str,
    ) -> Result<ControlFlow<StopReason, usize>, AcpError> {
        let scoped = match self.cards(reply, client, query, None).await? {
            ControlFlow::Continue(c) => c,
            ControlFlow::Break(stop) => return Ok(ControlFlow::Break(stop)),
        };
        let mut hits: Vec<Hit> = scoped
            .iter()
            .enumerate()
            .filter_map(|(i, c)| hit(c, i, true))
            .collect();
        let mut own: Vec<(String, Vec<Value>)> = Vec::new();
        for r in papers::rank(q, &hits).into_iter().take(PAPERS) {
            if reply.session.is_cancelled() {
                return Ok(ControlFlow::Break(StopReason::Cancelled));
            }
            let paths = [r.path.clone()];
            let cards = match self.cards(reply, client, query, Some(&paths)).await? {
                ControlFlow::Continue(c) => c,
                ControlFlow::Break(stop) => return Ok(ControlFlow::Break(stop)),
            };
            hits.extend(
                cards
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| hit(c, i, false)),
            );
            own.push((r.path, cards));
        }
        let ranked = papers::rank(q, &hits);
        let best = ranked.first().map_or(0.0, |r| r.score);
        // No paper stands out (the next one scores nearly as well): the scope's best pages, as
        // for one paper, weighed by how much of each paper the search found.
        if !papers::stands_out(&ranked) {
            let mut reads = 0;
            for (rank, card) in scoped.iter().enumerate() {
                if reads >= MAX_READS {
                    break;
                }
                if reply.session.is_cancelled() {
                    return Ok(ControlFlow::Break(StopReason::Cancelled));
                }
                let excerpt = card.get("excerpt").and_then(Value::as_str).unwrap_or("");
                if papers::is_bibliography(excerpt) {
                    continue;
                }
                if self.read_card(reply, client, card, rank, None).await? {
                    reads += 1;
                }
            }
            return Ok(ControlFlow::Continue(scoped.len()));
        }
        let weight = |path: Option<&str>| {
            ranked
                .iter()
                .find(|r| Some(r.path.as_str()) == path)
                .map_or(papers::prior(0.0, best), |r| papers::prior(r.score, best))
        };
        // The best paper's best pages (its own search's cards, else the scope's cards of it),
        // then the scope's best cards whatever their paper, each weighed by its paper's score.
        let top: Vec<Value> = match ranked.first() {
            Some(r) => match own.iter().find(|(p, _)| *p == r.path) {
                Some((_, c)) if !c.is_empty() => c.clone(),
                _ => scoped
                    .iter()
                    .filter(|c| c.get("path").and_then(Value::as_str) == Some(r.path.as_str()))
                    .cloned()
                    .collect(),
            },
            None => Vec::new(),
        };
        let mut reads = 0;
        for (cards, most) in [(&top, BEST_PAPER_READS), (&scoped, PAPER_SCOPE_READS)] {
            for (rank, card) in cards.iter().enumerate() {
                if reads >= most {
                    break;
                }
                if reply.session.is_cancelled() {
                    return Ok(ControlFlow::Break(StopReason::Cancelled));
                }
                let excerpt = card.get("excerpt").and_then(Value::as_str).unwrap_or("");
                if papers::is_bibliography(excerpt) {
                    continue;
                }
                let w = weight(card.get("path").and_then(Value::as_str));
                if self.read_card(reply, client, card, rank, Some(w)).await? {
                    reads += 1;
                }
            }
        }
        Ok(ControlFlow::Continue(scoped.len()))
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
        paper: None,
    }
}

fn quoted_words(words: &[String]) -> String {
    words
        .iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn say_picks(reply: &mut Reply<'_>, picks: &[Pick]) -> Result<(), AcpError> {
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
    // Many papers in the grant (a folder, a collection, several papers) and no page being read:
    // papers are ranked first, then their pages.
    let many_papers = prompt.sources.len() >= 2
        || prompt
            .sources
            .iter()
            .any(|(k, _)| k != "paper" && k != "file");
    if !about_page_only && !about_paper_only && !query.is_empty() {
        let found = if many_papers && anchor.is_none() {
            r.search_papers(reply, client, &q, &query).await?
        } else {
            r.search(reply, client, &query).await?
        };
        match found {
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
    say_picks(reply, &picks)?;
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
            paper: None,
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
    say_picks(reply, &picks)?;
    reply.say(
        "I cannot read further in this turn: no vault tools are available (prompt only), so this is all the \
         evidence I have.",
    )?;
    Ok(StopReason::EndTurn)
}
