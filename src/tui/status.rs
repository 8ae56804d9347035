//! A status bar message and its level, chosen by whoever writes it.

/// How a status message reads: a note, or a failure (drawn in the error colour and kept
/// longer). The writer says which; nothing guesses it from the words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Level {
    #[default]
    Info,
    Error,
}

/// A message for the status bar, with its level.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Status {
    pub text: String,
    pub level: Level,
}

impl Status {
    pub fn info(text: impl Into<String>) -> Status {
        Status {
            text: text.into(),
            level: Level::Info,
        }
    }

    pub fn error(text: impl Into<String>) -> Status {
        Status {
            text: text.into(),
            level: Level::Error,
        }
    }

    /// A note when it worked, a failure when not.
    pub fn of(result: Result<String, String>) -> Status {
        match result {
            Ok(text) => Status::info(text),
            Err(text) => Status::error(text),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn is_error(&self) -> bool {
        self.level == Level::Error
    }
}
