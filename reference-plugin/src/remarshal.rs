//! The `install-remarshals-config` fault (a testing aid): the agent's own
//! TOML config, `.reference/config.toml`, which the user edits by hand and
//! commits with their team, read into a map and written back to turn the
//! hooks on (and off again). Every value survives; the user's comments,
//! blank lines, key order and spellings do not (docs/host.md "Config files
//! byte for byte"). A plugin must edit such a file in place, touching only
//! its own lines.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use crate::error::{Error, ErrorContext, Result};

/// The config file, relative to the agent directory.
const CONFIG_FILE: &str = "config.toml";
/// The table of the plugin's own key.
const TABLE: &str = "entire";

/// Sets `[entire] hooks = true` in the config, through a map.
pub fn install(dir: &Path) -> Result<()> {
    let path = dir.join(CONFIG_FILE);
    let mut config = load(&path)?.unwrap_or_default();
    let mut own = toml::Table::new();
    own.insert("hooks".into(), toml::Value::Boolean(true));
    config.insert(TABLE.into(), toml::Value::Table(own));
    save(&path, &config)
}

/// Takes the plugin's table out again, through a map; a file left empty
/// goes.
pub fn uninstall(dir: &Path) -> Result<()> {
    let path = dir.join(CONFIG_FILE);
    let Some(mut config) = load(&path)? else {
        return Ok(());
    };
    if config.remove(TABLE).is_none() {
        return Ok(());
    }
    if config.is_empty() {
        return fs::remove_file(&path).context(|| format!("removing {}", path.display()));
    }
    save(&path, &config)
}

fn load(path: &Path) -> Result<Option<toml::Table>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err).context(|| format!("reading {}", path.display())),
    };
    text.parse::<toml::Table>().map(Some).map_err(|err| {
        Error::failed(format!(
            "{} is not valid TOML ({}); fix it by hand",
            path.display(),
            err.message()
        ))
    })
}

fn save(path: &Path, config: &toml::Table) -> Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    }
    let text = toml::to_string(config)
        .map_err(|err| Error::failed(format!("encoding {}: {err}", path.display())))?;
    fs::write(path, text).context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_values_survive_and_the_users_lines_do_not() {
        let dir = std::env::temp_dir().join(format!("reference-remarshal-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("dir");
        let user = "# my settings\nzeta = 1\nalpha = 0o755\n";
        fs::write(dir.join(CONFIG_FILE), user).expect("write");
        install(&dir).expect("install");
        let now = fs::read_to_string(dir.join(CONFIG_FILE)).expect("read");
        assert!(!now.contains("# my settings"), "{now}");
        assert!(now.contains("alpha = 493"), "{now}");
        uninstall(&dir).expect("uninstall");
        let now = fs::read_to_string(dir.join(CONFIG_FILE)).expect("read");
        assert!(!now.contains("entire"), "{now}");
        let _ = fs::remove_dir_all(&dir);
    }
}
