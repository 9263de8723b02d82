//! Files that cases refer to: fixtures by name and the other files of the
//! case trees by path (a plugin's own samples and payloads). Its own module
//! so that both the case model and the placeholders can use it without
//! importing each other.

use std::collections::BTreeMap;
use std::sync::Arc;

/// Fixture files by name (the path under `fixtures/`), and every other
/// non-YAML file of the case trees by display path (for `path:` sources).
#[derive(Debug, Default, Clone)]
pub struct Fixtures {
    pub(crate) by_name: BTreeMap<String, Arc<[u8]>>,
    pub(crate) by_path: BTreeMap<String, Arc<[u8]>>,
}

impl Fixtures {
    /// A fixture's bytes.
    pub fn get(&self, name: &str) -> Option<&Arc<[u8]>> {
        self.by_name.get(name)
    }

    /// A file's bytes by its resolved display path.
    pub fn file(&self, path: &str) -> Option<&Arc<[u8]>> {
        self.by_path.get(path)
    }
}
