//! Discovery and registration (host-behaviour.md, "Discovery and
//! registration").

pub mod plugin_path;
