//! The newest host's rules that need calls of the harness's own making
//! (docs/host.md, "The newest host source (read December 2026)"):
//! `info.type` over the run and under the hook environment, and the work
//! tree left as it was by the calls that only read.

use crate::execute::Run;
use crate::host::identity;
use crate::judge::checks::Finding;
use crate::judge::discovery;
use crate::judge::readonly;
use crate::running::runner;
use crate::running::sandbox::Sandbox;

impl Run<'_> {
    /// `check_info_type_stable`: `info` called again as at discovery, under
    /// the hook environment (the agent's marker and the declared
    /// `caller_env_vars` set, as the agent's hooks see them); each `type`
    /// compared with the gate's. (A listing outside a repository records
    /// no session, so its type is not compared.)
    pub(super) fn info_type_stable(&self, sandbox: &Sandbox) -> Vec<Finding> {
        let name = crate::host::discovery::agent_name(self.plugin).unwrap_or_default();
        let hook_env = identity::hook_only_environment(&self.info, &name);
        let shown: Vec<String> = hook_env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut answers = Vec::new();
        for how in ["again, as at discovery", "hook"] {
            let mut inv = self.invocation(sandbox, vec!["info".into()], self.options.info_timeout);
            let label = match how {
                "hook" => {
                    for (k, v) in &hook_env {
                        inv.env.retain(|(name, _)| name != k);
                        inv.env.push((k.clone(), v.into()));
                    }
                    format!("in a hook's environment ({})", shown.join(" "))
                }
                _ => how.to_string(),
            };
            let outcome = runner::run(&inv);
            let answer = match outcome.exit_code() {
                Some(0) => crate::host::decoding::decode_host_json(&outcome.stdout),
                code => Err(format!("exit {code:?}")),
            };
            answers.push((label, answer));
        }
        discovery::check_type_stable(&self.info, &answers)
    }

    /// `check_read_only`: the work tree scanned, `info` run as the host
    /// runs it at discovery and in every hook (from the work tree's root),
    /// and scanned again. (`detect` is no call of the host's over a
    /// session: docs/host.md, "The calls the host makes over a session".)
    pub(super) fn read_only(&self, sandbox: &Sandbox) -> Vec<Finding> {
        let before = readonly::scan(&sandbox.repo());
        let inv = self.invocation(sandbox, vec!["info".into()], self.options.info_timeout);
        let _ = runner::run(&inv);
        let changed = readonly::changes(&before, &readonly::scan(&sandbox.repo()));
        readonly::judge("info", &changed)
    }
}
