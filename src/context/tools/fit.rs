//! Fitting a list to a budget of characters: the one rule for every list a tool returns in
//! parts (a folder's entries, a paper's sections and annotations, the vault MCP's papers).

use serde::Serialize;

/// Values from `items[from..]` while their JSON (each counted with one separator) fits `room`
/// characters; the index to continue from when some were left out. The first value is always
/// taken, so a continuation moves on (a result that is then too large for the budget is
/// refused as a whole, never repeated).
pub(super) fn fit<T: Serialize>(
    items: Vec<T>,
    from: usize,
    room: usize,
) -> (Vec<T>, Option<usize>) {
    let mut used = 0usize;
    let mut out = Vec::new();
    for (i, v) in items.into_iter().enumerate().skip(from) {
        let n = serde_json::to_string(&v).map_or(0, |t| t.chars().count()) + 1;
        if used + n > room && !out.is_empty() {
            return (out, Some(i));
        }
        used += n;
        out.push(v);
    }
    (out, None)
}

#[cfg(test)]
mod tests {
    use super::fit;
    use serde_json::{Value, json};

    /// Each of these is 4 characters of JSON (`"ab"`), 5 with its separator.
    fn items(n: usize) -> Vec<Value> {
        (0..n).map(|_| json!("ab")).collect()
    }

    #[test]
    fn a_list_fits_to_the_character_and_the_first_value_always_comes() {
        // Exactly the room: all of them.
        assert_eq!(fit(items(3), 0, 15), (items(3), None));
        // One character short: the last one waits for the continuation.
        assert_eq!(fit(items(3), 0, 14), (items(2), Some(2)));
        // No room at all: still the first, so a continuation moves on.
        assert_eq!(fit(items(3), 0, 0), (items(1), Some(1)));
        assert_eq!(fit(items(3), 2, 0), (items(1), None));
        // `from` skips what an earlier call returned; the index continues the whole list.
        assert_eq!(fit(items(4), 1, 10), (items(2), Some(3)));
        assert_eq!(fit(Vec::<Value>::new(), 0, 100), (Vec::new(), None));
    }

    /// `paper_list` cut its page with its own copy of this loop, counting 200 characters for
    /// the envelope from the start; `fit` with the room less those 200 takes the same papers
    /// at every budget, a budget under 200 included (one paper, as before).
    #[test]
    fn fit_after_the_envelope_takes_what_the_paper_list_loop_took() {
        fn paper_list_loop(all: Vec<Value>, read_chars: usize) -> Vec<Value> {
            let mut shown = Vec::new();
            let mut used = 200;
            for p in all {
                let n = serde_json::to_string(&p).map_or(0, |t| t.chars().count()) + 1;
                if !shown.is_empty() && used + n > read_chars {
                    break;
                }
                used += n;
                shown.push(p);
            }
            shown
        }
        let list: Vec<Value> = (0..12)
            .map(|i| json!({"path": format!("p{i}.pdf"), "title": "t".repeat(i)}))
            .collect();
        for read_chars in 0..600usize {
            let (shown, _) = fit(list.clone(), 0, read_chars.saturating_sub(200));
            assert_eq!(
                shown,
                paper_list_loop(list.clone(), read_chars),
                "{read_chars}"
            );
        }
    }
}
