//! agent-conform library.
