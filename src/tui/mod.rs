//! The terminal UI: the only module that touches the terminal (ratatui, crossterm, textarea).
