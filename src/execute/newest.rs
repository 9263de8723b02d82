//! The newest host's rules that need calls of the harness's own making
//! (docs/host.md, "The newest host source (read December 2026)"):
//! `info.type` over the run and under the hook environment, and the work
//! tree left as it was by the calls that only read.

use crate::execute::Run;
use crate::host::identity;
use crate::judge::checks::Finding;
use crate::judge::discovery;

use crate::running::sandbox::Sandbox;

impl Run<'_> {
    /// `check_info_type_stable`: `info` called again under the hook
    /// environment (the agent's marker and the declared `caller_env_vars`
    /// set, as the agent's hooks see them); its `type` compared with the
    /// gate's. (`info` again as at discovery is `discovery.info-stable`'s
    /// question: the same bytes; a listing outside a repository records no
    /// session, so its type is not compared.)
    pub(super) fn info_type_stable(&self, sandbox: &Sandbox) -> Vec<Finding> {
        let name = crate::host::discovery::agent_name(self.plugin).unwrap_or_default();
        let hook_env = identity::hook_only_environment(&self.info, &name);
        let shown: Vec<String> = hook_env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut answers = Vec::new();
        {
            let mut inv = self.invocation(sandbox, vec!["info".into()], self.options.info_timeout);
            for (k, v) in &hook_env {
                inv.env.retain(|(name, _)| name != k);
                inv.env.push((k.clone(), v.into()));
            }
            let label = format!("in a hook's environment ({})", shown.join(" "));
            let outcome = self.spawn(&inv);
            let answer = match outcome.exit_code() {
                Some(0) => crate::host::decoding::decode_host_json(&outcome.stdout),
                code => Err(format!("exit {code:?}")),
            };
            answers.push((label, answer));
        }
        discovery::check_type_stable(&self.info, &answers)
    }
}
